#pragma once
// The gradient descent that SNE and t-SNE are run with (docs/math/neighbour_embedding.md; openTSNE's
// and scikit-learn's): two phases, early exaggeration (the affinities multiplied by rho, momentum
// 0.5) then the plain objective (momentum 0.8); per-coordinate gains that grow by 0.2 where the
// gradient changes sign against the last update and shrink by 0.8 where it does not (at least
// min_gain); each row's step clipped to norm 5 (openTSNE's max_step_norm); the learning rate
// max(n / rho, 50) of each phase, in openTSNE's units (a gradient without t-SNE's constant 4).
// The velocity and gains start afresh at each phase, as openTSNE's two optimisation calls do.
// Every update is of one row from that row's gradient: the iterates do not depend on the rank
// count when the gradient does not.
#include <functional>

#include "gplvm/core/types.hpp"
#include "gplvm/probdr/neighbour_embedding_settings.hpp"

namespace gplvm {

// This rank's rows of the descent's state.
struct DescentState {
  RowMatrix update;  // the last step (the velocity)
  RowMatrix gains;
};

struct DescentStep {
  double kl = 0.0;             // the objective at the iterate before the step
  double gradient_norm = 0.0;  // of this rank's rows (squared norms summed by the caller if wanted)
};

// The gradient at an embedding, with the exaggeration to apply: the KL and dC/dY of this rank's rows.
using EmbeddingGradient =
    std::function<std::pair<double, RowMatrix>(const RowMatrix& y, double exaggeration)>;

class EmbeddingDescent {
 public:
  // `gradient_scale`: the constant the gradient carries beyond openTSNE's (4 for t-SNE and SNE).
  EmbeddingDescent(const NeighbourEmbeddingSettings& settings, std::uint64_t num_rows, double gradient_scale);
  Index total_iterations() const { return settings_.exaggeration_iterations + settings_.iterations; }
  double exaggeration(Index iteration) const;
  double momentum(Index iteration) const;
  double learning_rate(Index iteration) const;
  // Iteration `iteration` (0-based) from y and the state after the iterations before it.
  DescentStep step(RowMatrix& y, DescentState& state, Index iteration,
                   const EmbeddingGradient& gradient) const;

 private:
  NeighbourEmbeddingSettings settings_;
  double n_;
  double gradient_scale_;
};

}  // namespace gplvm

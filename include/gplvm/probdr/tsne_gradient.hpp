#pragma once
// The t-SNE objective and gradient at scale (docs/math/neighbour_embedding.md): the attraction over
// each rank's sparse affinity edges, with the rows its edges reach fetched from their owners (a
// halo exchange), and the repulsion by FFT-accelerated interpolation (interpolated_repulsion.hpp) or
// exactly:
//   dC/dy_i = 4 [ rho sum_j p_ij w_ij^{1/alpha} (y_i - y_j) - F_i / Z ],
//   C       = sum p log p - sum_edges p_ij log w_ij + log Z,
// rho the exaggeration, F and Z the repulsion's sums. Each rank holds its rows, its rows' edges, the
// halo's rows and the grid.
#include <cstdint>
#include <memory>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/probdr/interpolated_repulsion.hpp"
#include "gplvm/probdr/neighbour_embedding_settings.hpp"

namespace gplvm {

struct TsneEvaluation {
  double kl = 0.0;     // the true KL (without exaggeration); NaN when not asked for
  RowMatrix gradient;  // this rank's rows
  double normaliser = 0.0;
  Index boxes_per_dimension = 0;  // the interpolation grid's (0: exact repulsion)
};

class TsneGradient {
 public:
  // `p`: the joint affinities (this rank's rows, global columns), summing to 1 over every rank.
  // Collective (the halo's plan and sum p log p).
  TsneGradient(const SparseGraph& p, double alpha, RepulsionMethod repulsion,
               const InterpolationOptions& grid, const Communicator& comm);
  // Collective. Without `with_kl` the KL is NaN (it costs a logarithm per edge and a reduction).
  TsneEvaluation evaluate(const RowMatrix& y, double exaggeration, bool with_kl = true) const;
  const SparseGraph& affinities() const noexcept { return p_; }

 private:
  const SparseGraph& p_;
  double alpha_;
  RepulsionMethod repulsion_;
  InterpolationOptions grid_;
  const Communicator& comm_;
  // The grid's FFT plans and buffers, kept between iterations (evaluate is logically const).
  mutable std::unique_ptr<InterpolatedRepulsion> interpolation_;
  std::vector<std::int64_t> halo_;  // the remote rows the edges reach, ascending
  // Per edge: where its column's row lies in one array of the local rows followed by the halo's (an
  // offset in rows; 32 bits, half the memory traffic of the loop that streams it).
  std::vector<std::int32_t> slot_;
  double entropy_term_ = 0.0;  // sum p log p over every rank
};

}  // namespace gplvm

#pragma once
// Latents of new data under a model with free latents (no encoder): each row's latent maximises
// the exact GP predictive log density of its data row with the decoder fixed,
//   f(x) = log N(y | mu(x), v(x) I) = -D/2 log(2 pi v) - ||y - mu||^2 / (2 v),
//   mu(x) = alpha^T k_x,  v(x) = k(x, x) + s2 - ||L^{-1} k_x||^2,  alpha = (K + s2 I)^{-1} Y,
// over a conditioning set of training rows at their trained latents (K + s2 I = L L^T,
// replicated: M is a few thousand at most). The gradient by hand (docs/math/exact_gplvm.md):
//   df/dmu = (y - mu)/v,  df/dv = -D/(2v) + ||y - mu||^2/(2 v^2),
//   df/dk_x = alpha df/dmu - 2 df/dv (K + s2 I)^{-1} k_x,
// carried to x through Kernel::cross_backward, plus df/dv dk(x, x)/dx (Kernel::diagonal_backward).
// Each row starts at the latent of its nearest conditioning row (in data space) and takes a fixed
// number of ascent steps along its Riemannian gradient in the run's latent space, each step
// accepted only if f increases (the step length grows by 1.5 after a success and halves after a
// failure), so f never decreases. The inferring calls keep every iterate inside the bounding box
// of the conditioning latents' (ambient) coordinates, LatentBox, the region the decoder was fitted
// on. Beyond it the predictive falls back to the GP's prior (mean 0, variance k(x, x) + s2) within
// a few lengthscales, and for a row the ascent's start explains worse than that broad prior (a
// start on the wrong branch where a 1-D latent folds a curve back on itself) f rises all the way
// out, so a free ascent reconstructs the row as the prior mean, a point the model gives no training
// row. In R^Q a candidate is clamped to the box (projected ascent); on a curved space one that
// leaves it counts as a failure, like one that does not raise f. The geometry comes
// from the LatentSpace: the ambient gradient is turned into the Riemannian one (riemannian_gradient),
// normalised by its length in the space's metric (tangent_squared_norms) and followed by retract. In R^Q
// these are the identity, the Euclidean norm and x + step; on the hyperboloid (Lorentz latents, Q + 1 ambient
// columns) the Minkowski-metric gradient projected onto the tangent space, its Minkowski length and the
// exponential map with re-projection, so every iterate stays on the sheet and a step of length
// s moves the point a geodesic distance s (docs/math/lorentz.md, "Encoding new rows").
#include <cstdint>
#include <functional>
#include <optional>

#include "gplvm/core/types.hpp"
#include "gplvm/linalg/cholesky.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/model/sphere_linear_basepoint.hpp"
#include "gplvm/models/predictor.hpp"

namespace gplvm {

struct LatentInferenceOptions {
  int steps = 50;                          // ascent steps per row (gplvm encode/evaluate --infer-steps)
  std::uint64_t conditioning_size = 1000;  // training rows conditioned on (--infer-condition; 0: all)
  std::uint64_t seed = 0;                  // chooses them (eval/conditioning_set.hpp)
  double initial_step = 0.1;               // first step length, in latent units (geodesic on lorentz)
};

// The predictive density of data rows at latents, and its gradient w.r.t. the latents. Serial.
class GpPredictiveDensity {
 public:
  // latents: M x (ambient dimension) training latents, data: their M x D rows.
  GpPredictiveDensity(const Kernel& kernel, double noise_variance, Matrix latents, Matrix data);

  // f for each row of X (n x ambient) against its data row of Y (n x D); gradient (n x ambient,
  // overwritten) when given: the ambient (Euclidean) one, exact along the space's tangent directions.
  // df/dY = -(y - mu)/v (n x D, overwritten) when d_data is given; the predictive variance v (n)
  // when predictive_variance is given.
  Vector log_density(const ConstMatrixRef& X, const DataRef& Y, Matrix* gradient, Matrix* d_data = nullptr,
                     Vector* predictive_variance = nullptr) const;
  Matrix mean(const ConstMatrixRef& X) const;  // mu(x) per row of X (n x D)

  const Matrix& latents() const noexcept { return latents_; }
  const Matrix& data() const noexcept { return data_; }

 private:
  std::unique_ptr<Kernel> kernel_;
  double noise_variance_;
  Matrix latents_, data_, alpha_;
  CholeskyFactor factor_;
};

// The axis-aligned bounding box of a set of latents' ambient coordinates (on the hyperboloid: a
// compact piece of the sheet around them). Every conditioning latent, so every start, lies in it.
struct LatentBox {
  Vector lower, upper;  // per ambient coordinate

  static LatentBox around(const Matrix& latents);
  bool contains(const auto& row) const {
    return (row.transpose().array() >= lower.array()).all() &&
           (row.transpose().array() <= upper.array()).all();
  }
};

// Per-row log densities f of latents X (n x ambient) and, when asked, their ambient gradient.
using RowLogDensity = std::function<Vector(const ConstMatrixRef& X, Matrix* gradient)>;

// The ascent above from the given start (n x ambient, points of `space`, inside `box` when one is
// given); returns the latents reached, inside the box.
Matrix maximise_log_density(const RowLogDensity& density, const LatentSpace& space, Matrix start,
                            const LatentInferenceOptions& options, const std::optional<LatentBox>& box = {});
Matrix maximise_log_density(const GpPredictiveDensity& density, const LatentSpace& space, const DataRef& Y,
                            Matrix start, const LatentInferenceOptions& options,
                            const std::optional<LatentBox>& box = {});

// The latents of this rank's rows `Y` (n x D): the density over a conditioning set of the training
// evidence (collective), each row started at its nearest conditioning row's latent and kept in the
// conditioning latents' LatentBox.
// `space` is the run's latent space (Model::latent_space(), make_latent_space).
RowMatrix infer_latents(const Kernel& kernel, double noise_variance, const LatentSpace& space,
                        const TrainingEvidence& training, const DataRef& Y,
                        const LatentInferenceOptions& options, const Communicator& comm);

// With a latent-dependent basepoint (model.basepoint = "linear") the coordinates of a point move
// with its latent: f(x) = log N(V(x, p) | mu(x), v(x) I), V(x, p) = E(x)^T Log_{m(x)}(p), whose
// gradient adds (df/dV) J A (J = dV/du at u = A x). training.data holds the training rows' V at
// their trained latents; `points` are this rank's rows as points of the chart's frame
// (chart_frame_points). Each row starts at the conditioning latent of largest f (the training
// rows' coordinates are in frames of their own, so nearness in V means nothing) and stays in the
// conditioning latents' LatentBox. Collective.
RowMatrix infer_latents_linear_basepoint(const Kernel& kernel, double noise_variance,
                                         const TrainingEvidence& training,
                                         const SphereLinearBasepoint& basepoint, const DataRef& points,
                                         const LatentInferenceOptions& options, const Communicator& comm);

}  // namespace gplvm

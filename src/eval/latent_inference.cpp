#include "gplvm/eval/latent_inference.hpp"

#include <cmath>
#include <numbers>
#include <utility>

#include "gplvm/eval/conditioning_set.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/model/euclidean_latent_space.hpp"

namespace gplvm {
namespace {

// K + s2 I of the conditioning latents.
Matrix noisy_kernel(const Kernel& kernel, double noise_variance, const Matrix& latents) {
  Matrix K;
  kernel.cross(latents, latents, K);
  K.diagonal().array() += noise_variance;
  return K;
}

// The latent of the nearest (squared Euclidean distance in data space) conditioning row per row.
Matrix nearest_latents(const GpPredictiveDensity& density, const DataRef& Y) {
  const KnnGraph nearest = query_neighbours(RowMatrix(density.data()), Y, 1);
  Matrix start(Y.rows(), density.latents().cols());
  for (Index n = 0; n < Y.rows(); ++n) start.row(n) = density.latents().row(nearest.neighbours(n, 0));
  return start;
}

// A row whose squared norm is finite. Where the density still rises towards infinity (a row the
// conditioning set explains no better than the prior mean), the growing step would otherwise walk
// to coordinates that overflow (cosh of a long geodesic step on the hyperboloid); such a step
// counts as a failure and halves the step length.
bool representable(const auto& row) {
  return std::isfinite(row.squaredNorm());
}

}  // namespace

LatentBox LatentBox::around(const Matrix& latents) {
  return {latents.colwise().minCoeff().transpose(), latents.colwise().maxCoeff().transpose()};
}

GpPredictiveDensity::GpPredictiveDensity(const Kernel& kernel, double noise_variance, Matrix latents,
                                         Matrix data)
    : kernel_(kernel.clone()),
      noise_variance_(noise_variance),
      latents_(std::move(latents)),
      data_(std::move(data)),
      factor_(CholeskyFactor::factorize(noisy_kernel(kernel, noise_variance, latents_),
                                        "K + s2 I (latent inference conditioning set)")) {
  alpha_ = data_;
  factor_.solve_in_place(alpha_);
}

Matrix GpPredictiveDensity::mean(const ConstMatrixRef& X) const {
  Matrix Kxm;
  kernel_->cross(X, latents_, Kxm);
  return Kxm * alpha_;
}

Vector GpPredictiveDensity::log_density(const ConstMatrixRef& X, const DataRef& Y, Matrix* gradient,
                                        Matrix* d_data, Vector* predictive_variance) const {
  const double D = static_cast<double>(Y.cols());
  Matrix Kxm;  // n x M
  kernel_->cross(X, latents_, Kxm);
  Vector prior;
  kernel_->diagonal(X, prior);
  Matrix solved = Kxm.transpose();  // M x n: (K + s2 I)^{-1} k_x, through the half solve first
  factor_.solve_lower_in_place(solved);
  const Vector explained = solved.colwise().squaredNorm().transpose();
  const Vector variance = (prior.array() + noise_variance_).matrix() - explained;
  const Matrix residual = Y - Kxm * alpha_;  // n x D: y - mu
  const Vector squares = residual.rowwise().squaredNorm();
  const Vector f = (-0.5 * D * (2.0 * std::numbers::pi * variance.array()).log() -
                    0.5 * squares.array() / variance.array())
                       .matrix();
  if (d_data) *d_data = -(residual.array().colwise() / variance.array()).matrix();
  if (predictive_variance) *predictive_variance = variance;
  if (gradient == nullptr) return f;
  factor_.solve_upper_in_place(solved);
  const Vector d_variance =
      (-0.5 * D / variance.array() + 0.5 * squares.array() / variance.array().square()).matrix();
  // dF/dK_xm: alpha df/dmu (as rows) and -2 df/dv (K + s2 I)^{-1} k_x.
  const Matrix G = (residual.array().colwise() / variance.array()).matrix() * alpha_.transpose() -
                   2.0 * (solved.transpose().array().colwise() * d_variance.array()).matrix();
  gradient->setZero(X.rows(), X.cols());
  Vector ignored_hyper = Vector::Zero(kernel_->num_hyperparameters());
  kernel_->cross_backward(X, latents_, Kxm, G, gradient, nullptr, ignored_hyper);
  kernel_->diagonal_backward(X, d_variance, gradient, ignored_hyper);
  return f;
}

Matrix maximise_log_density(const GpPredictiveDensity& density, const LatentSpace& space, const DataRef& Y,
                            Matrix start, const LatentInferenceOptions& options,
                            const std::optional<LatentBox>& box) {
  return maximise_log_density(
      [&](const ConstMatrixRef& X, Matrix* gradient) { return density.log_density(X, Y, gradient); }, space,
      std::move(start), options, box);
}

Matrix maximise_log_density(const RowLogDensity& density, const LatentSpace& space, Matrix start,
                            const LatentInferenceOptions& options, const std::optional<LatentBox>& box) {
  const auto allowed = [&](const auto& row) { return representable(row) && (!box || box->contains(row)); };
  const Manifold& manifold = space.manifold();
  const bool flat = !manifold.is_curved();
  Matrix x = std::move(start), direction, candidate_gradient;
  Vector f = density(x, &direction);
  manifold.riemannian_gradient(x, direction);
  Vector step = Vector::Constant(x.rows(), options.initial_step);
  for (int s = 0; s < options.steps; ++s) {
    // Each row moves a distance step[n] (in the space's metric) along its Riemannian gradient.
    const Vector lengths = manifold.tangent_squared_norms(x, direction).cwiseSqrt();
    Matrix move = Matrix::Zero(x.rows(), x.cols());
    for (Index n = 0; n < x.rows(); ++n)
      if (lengths[n] > 0) move.row(n) = (step[n] / lengths[n]) * direction.row(n);
    Matrix candidate = x;
    manifold.retract(candidate, move);
    // In R^Q the candidate is clamped to the box, so a row slides along its face towards a maximum
    // inside; a point of a curved space would leave the space, so there it is only refused.
    if (box && flat)
      for (Index n = 0; n < candidate.rows(); ++n)
        candidate.row(n) = candidate.row(n).cwiseMax(box->lower.transpose()).cwiseMin(box->upper.transpose());
    const Vector candidate_f = density(candidate, &candidate_gradient);
    manifold.riemannian_gradient(candidate, candidate_gradient);
    for (Index n = 0; n < x.rows(); ++n) {
      if (candidate_f[n] > f[n] && allowed(candidate.row(n))) {
        x.row(n) = candidate.row(n);
        direction.row(n) = candidate_gradient.row(n);
        f[n] = candidate_f[n];
        step[n] *= 1.5;
      } else {
        step[n] *= 0.5;
      }
    }
  }
  return x;
}

namespace {

// The predictive density over the conditioning set drawn from the training evidence. Collective.
GpPredictiveDensity conditioning_density(const Kernel& kernel, double noise_variance,
                                         const TrainingEvidence& training,
                                         const LatentInferenceOptions& options, const Communicator& comm) {
  const ConditioningSet cond =
      conditioning_set(training.data, training.latent_mean, options.conditioning_size, options.seed, comm);
  Matrix data = comm.allgather_rows(DataRef(cond.local_y));
  return GpPredictiveDensity(kernel, noise_variance, cond.latents, std::move(data));
}

}  // namespace

RowMatrix infer_latents(const Kernel& kernel, double noise_variance, const LatentSpace& space,
                        const TrainingEvidence& training, const DataRef& Y,
                        const LatentInferenceOptions& options, const Communicator& comm) {
  const GpPredictiveDensity density = conditioning_density(kernel, noise_variance, training, options, comm);
  const Matrix& conditioning_latents = density.latents();
  return maximise_log_density(density, space, Y, nearest_latents(density, Y), options,
                              LatentBox::around(conditioning_latents));
}

namespace {

// f of each point at its own latent (row i of X with row i of the points), with the gradient in X.
Vector linear_basepoint_log_density(const GpPredictiveDensity& density,
                                    const SphereLinearBasepoint& basepoint, const ConstMatrixRef& X,
                                    const DataRef& points, Matrix* gradient) {
  const Index n = X.rows();
  RowMatrix V(n, basepoint.tangent_dim());
  std::vector<Matrix> jacobians(gradient ? n : 0);
  for (Index i = 0; i < n; ++i)
    V.row(i) =
        basepoint
            .coordinates(X.row(i).transpose(), points.row(i).transpose(), gradient ? &jacobians[i] : nullptr)
            .transpose();
  Matrix d_data;
  const Vector f = density.log_density(X, V, gradient, gradient ? &d_data : nullptr);
  if (gradient)
    for (Index i = 0; i < n; ++i)
      gradient->row(i) +=
          (basepoint.map().transpose() * (jacobians[i].transpose() * d_data.row(i).transpose())).transpose();
  return f;
}

}  // namespace

RowMatrix infer_latents_linear_basepoint(const Kernel& kernel, double noise_variance,
                                         const TrainingEvidence& training,
                                         const SphereLinearBasepoint& basepoint, const DataRef& points,
                                         const LatentInferenceOptions& options, const Communicator& comm) {
  const GpPredictiveDensity density = conditioning_density(kernel, noise_variance, training, options, comm);
  const Matrix& conditioning_latents = density.latents();
  // The start: of the conditioning latents z_j, the one where each point is most likely (the
  // predictive at the z_j once, then only the coordinates V(z_j, p) per point).
  const Index m = conditioning_latents.rows();
  const Matrix mean = density.mean(conditioning_latents);
  Vector variance = Vector::Zero(m);
  density.log_density(conditioning_latents, mean, nullptr, nullptr, &variance);
  Matrix start(points.rows(), conditioning_latents.cols());
  for (Index i = 0; i < points.rows(); ++i) {
    Vector f(m);
    for (Index j = 0; j < m; ++j) {
      const Vector v =
          basepoint.coordinates(conditioning_latents.row(j).transpose(), points.row(i).transpose(), nullptr);
      f[j] = -0.5 * static_cast<double>(v.size()) * std::log(variance[j]) -
             0.5 * (v - mean.row(j).transpose()).squaredNorm() / variance[j];
    }
    Index best = 0;
    f.maxCoeff(&best);
    start.row(i) = conditioning_latents.row(best);
  }
  const EuclideanLatentSpace latent_space(conditioning_latents.cols());
  return maximise_log_density(
      [&](const ConstMatrixRef& X, Matrix* gradient) {
        return linear_basepoint_log_density(density, basepoint, X, points, gradient);
      },
      latent_space, std::move(start), options, LatentBox::around(conditioning_latents));
}

}  // namespace gplvm

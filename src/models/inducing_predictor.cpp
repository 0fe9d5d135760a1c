#include "gplvm/models/inducing_predictor.hpp"

#include <utility>

#include "gplvm/objectives/inducing_jitter.hpp"

namespace gplvm {

InducingPointPredictor::InducingPointPredictor(std::unique_ptr<Kernel> kernel, Matrix inducing,
                                               InducingPosterior posterior, double noise_variance)
    : kernel_(std::move(kernel)),
      inducing_(std::move(inducing)),
      posterior_(std::move(posterior)),
      noise_variance_(noise_variance) {
  Matrix K;
  kernel_->cross(inducing_, inducing_, K);
  // The prior covariance the bounds trained q(u) under (inducing_jitter.hpp).
  inducing_factor_ = CholeskyFactor::factorize(
      jittered_inducing_kernel(std::move(K), kInducingRelativeJitter), "K_ZZ (inducing points)");
}

Prediction InducingPointPredictor::predict(const ConstMatrixRef& latents) {
  Prediction p;
  Matrix A;  // M x n: k(Z, X*), then L^{-1} k(Z, X*), then K^{-1} k(Z, X*)
  kernel_->cross(inducing_, latents, A);
  inducing_factor_.solve_lower_in_place(A);
  const Vector explained = A.colwise().squaredNorm().transpose();
  inducing_factor_.solve_upper_in_place(A);
  p.mean = A.transpose() * posterior_.mean;
  const Matrix spread = posterior_.scale.triangularView<Eigen::Lower>().transpose() * A;
  kernel_->diagonal(latents, p.variance);
  p.variance += spread.colwise().squaredNorm().transpose() - explained;
  p.variance.array() += noise_variance_;
  return p;
}

}  // namespace gplvm

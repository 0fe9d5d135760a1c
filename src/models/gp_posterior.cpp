#include "gplvm/models/gp_posterior.hpp"

#include <string>
#include <utility>

#include "gplvm/core/error.hpp"
#include "gplvm/objectives/inducing_jitter.hpp"

namespace gplvm {
namespace {

void require_inputs(const Kernel& kernel, const ConstMatrixRef& X, const char* what) {
  require(X.cols() == kernel.input_dim(), std::string(what) + " have the wrong number of latent coordinates",
          {"", "latent_dim", std::to_string(X.cols())});
  require(X.allFinite(), std::string(what) + " contain NaN or Inf", {"", "latents", "non-finite"});
}

}  // namespace

GpPosterior::GpPosterior(const Kernel& kernel, Matrix inputs, double noise_variance)
    : kernel_(kernel.clone()), inputs_(std::move(inputs)), noise_variance_(noise_variance) {
  require_inputs(kernel, inputs_, "conditioning inputs");
}

GpPosterior GpPosterior::given_observations(const Kernel& kernel, const ConstMatrixRef& Z,
                                            const ConstMatrixRef& Y, double noise_variance) {
  require(Y.rows() == Z.rows(), "conditioning rows and inputs differ in number",
          {"", "rows", std::to_string(Y.rows())});
  GpPosterior p(kernel, Z, noise_variance);
  Matrix K;
  kernel.cross(p.inputs_, p.inputs_, K);
  K.diagonal().array() += noise_variance;
  p.factor_ = CholeskyFactor::factorize(std::move(K), "K + s2 I (conditioning rows)");
  p.alpha_ = Y;
  p.factor_.solve_in_place(p.alpha_);
  return p;
}

GpPosterior GpPosterior::given_inducing(const Kernel& kernel, const ConstMatrixRef& Z, const InducingPosterior& q,
                                        double noise_variance) {
  require(q.num_inducing() == Z.rows(), "the inducing posterior and the inducing inputs differ in number",
          {"", "inducing", std::to_string(q.num_inducing())});
  GpPosterior p(kernel, Z, noise_variance);
  Matrix K;
  kernel.cross(p.inputs_, p.inputs_, K);
  // The prior covariance the bounds trained q(u) under (inducing_jitter.hpp).
  p.factor_ = CholeskyFactor::factorize(jittered_inducing_kernel(std::move(K), kInducingRelativeJitter),
                                        "K_ZZ (inducing points)");
  p.alpha_ = q.mean;
  p.factor_.solve_in_place(p.alpha_);
  Matrix root = q.scale.triangularView<Eigen::Lower>();  // R = K^{-1} L_S
  p.factor_.solve_in_place(root);
  p.spread_root_transposed_ = root.transpose();
  return p;
}

Prediction GpPosterior::predict(const ConstMatrixRef& X) const {
  require_inputs(*kernel_, X, "test latents");
  Prediction p;
  Matrix A;  // M x n: k(Z, X), then L^{-1} k(Z, X)
  kernel_->cross(inputs_, X, A);
  p.mean = A.transpose() * alpha_;
  Vector retained;
  if (spread_root_transposed_) retained = (*spread_root_transposed_ * A).colwise().squaredNorm().transpose();
  factor_.solve_lower_in_place(A);
  kernel_->diagonal(X, p.variance);
  p.variance -= A.colwise().squaredNorm().transpose();
  if (spread_root_transposed_) p.variance += retained;
  p.variance.array() += noise_variance_;
  return p;
}

JacobianPrediction GpPosterior::jacobian(const ConstMatrixRef& X) const {
  require_inputs(*kernel_, X, "test latents");
  JacobianPrediction out;
  out.mean.reserve(X.rows());
  out.covariance.reserve(X.rows());
  for (Index i = 0; i < X.rows(); ++i) {
    Matrix G = kernel_->input_gradients(X.row(i), inputs_);  // M x Q
    out.mean.push_back(alpha_.transpose() * G);
    Matrix covariance = kernel_->gradient_covariance(X.row(i));
    if (spread_root_transposed_) {
      const Matrix retained = *spread_root_transposed_ * G;
      covariance.noalias() += retained.transpose() * retained;
    }
    factor_.solve_lower_in_place(G);
    covariance.noalias() -= G.transpose() * G;
    out.covariance.push_back(std::move(covariance));
  }
  return out;
}

}  // namespace gplvm

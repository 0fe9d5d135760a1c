#include "gplvm/objectives/gp_marginal.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

void validate_latents(double noise_variance, const ConstMatrixRef& X) {
  require(X.rows() > 0, "GP marginal likelihood of an empty point set", {"", "rows", "0"});
  require(std::isfinite(noise_variance) && noise_variance > 0, "noise variance must be positive and finite",
          {"", "noise_variance", std::to_string(noise_variance)});
  require(X.allFinite(), "latents contain NaN or Inf", {"", "latents", "non-finite"});
}

}  // namespace

GpFactor gp_factor(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X,
                   const std::string& what) {
  validate_latents(noise_variance, X);
  GpFactor f;
  kernel.cross(X, X, f.kernel_block);
  Matrix K = f.kernel_block;
  K.diagonal().array() += noise_variance;
  f.factor = CholeskyFactor::factorize(std::move(K), what);
  return f;
}

double gp_normaliser(const CholeskyFactor& factor, Index d) {
  const double n = static_cast<double>(factor.size()), dd = static_cast<double>(d);
  return -0.5 * n * dd * std::log(2.0 * std::numbers::pi) - 0.5 * dd * factor.log_determinant();
}

GpMarginal gp_marginal(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X, const DataRef& Y,
                       const std::string& what) {
  require(X.rows() == Y.rows(), "latents and data have different numbers of rows",
          {"", "rows", std::to_string(X.rows()) + " vs " + std::to_string(Y.rows())});
  GpFactor f = gp_factor(kernel, noise_variance, X, what);
  GpMarginal m;
  m.kernel_block = std::move(f.kernel_block);
  m.factor = std::move(f.factor);

  // Data term 1/2 ||L^{-1} Y||_F^2 from one triangular solve; alpha from the second.
  m.whitened_data = Y;
  m.factor.solve_lower_in_place(m.whitened_data);
  m.alpha = m.whitened_data;
  m.factor.solve_upper_in_place(m.alpha);
  m.log_likelihood = gp_normaliser(m.factor, Y.cols()) - 0.5 * m.whitened_data.squaredNorm();
  return m;
}

Matrix gp_marginal_adjoint(const GpMarginal& marginal, const Matrix& inverse) {
  const double d = static_cast<double>(marginal.alpha.cols());
  Matrix W = (-0.5 * d) * inverse;
  W.selfadjointView<Eigen::Lower>().rankUpdate(marginal.alpha, 0.5);
  W.triangularView<Eigen::StrictlyUpper>() = W.transpose();
  return W;
}

void backprop_symmetric_block(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X,
                              const Matrix& kernel_block, const Matrix& W, GpGradient& gradient) {
  // Both arguments of k(X, X) are X: the same dX receives both adjoint contributions.
  kernel.cross_backward(X, X, kernel_block, W, &gradient.d_latents, &gradient.d_latents, gradient.d_kernel);
  gradient.d_log_noise += noise_variance * W.trace();
}

GpGradient exact_log_marginal_likelihood(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X,
                                         const DataRef& Y, bool with_gradient) {
  const GpMarginal m = gp_marginal(kernel, noise_variance, X, Y, "K_NN + noise I (exact GPLVM)");
  GpGradient g;
  g.value = m.log_likelihood;
  if (!with_gradient) return g;
  g.d_latents = Matrix::Zero(X.rows(), X.cols());
  g.d_kernel = Vector::Zero(kernel.num_hyperparameters());
  backprop_symmetric_block(kernel, noise_variance, X, m.kernel_block,
                           gp_marginal_adjoint(m, m.factor.inverse()), g);
  return g;
}

}  // namespace gplvm

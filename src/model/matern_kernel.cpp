#include "gplvm/model/matern_kernel.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "kernel_checks.hpp"

namespace gplvm {
namespace {

using kernel_checks::require_input_dim;
using kernel_checks::require_positive_finite;

// The profile f(r) (k = theta f(r)) and f'(r) / r, which stays finite at r = 0: every adjoint is
// a multiple of (x_q - x'_q), so it is written with f'(r) / r and never divides by r.
struct Profile {
  double value;
  double slope_over_r;
};

Profile matern_profile(MaternSmoothness smoothness, double r) {
  if (smoothness == MaternSmoothness::three_halves) {
    const double a = std::sqrt(3.0) * r, e = std::exp(-a);
    return {(1.0 + a) * e, -3.0 * e};
  }
  const double a = std::sqrt(5.0) * r, e = std::exp(-a);
  return {(1.0 + a + a * a / 3.0) * e, -(5.0 / 3.0) * (1.0 + a) * e};
}

}  // namespace

MaternArdKernel::MaternArdKernel(MaternSmoothness smoothness, double variance, const Vector& lengthscales)
    : smoothness_(smoothness), variance_(variance), lengthscales_(lengthscales) {
  kernel_checks::require_latent_dim(lengthscales.size(), "Matern");
  require_positive_finite(variance, "kernel.variance");
  for (Index q = 0; q < lengthscales.size(); ++q)
    require_positive_finite(lengthscales[q], "kernel.lengthscale");
}

std::unique_ptr<Kernel> MaternArdKernel::clone() const {
  return std::make_unique<MaternArdKernel>(*this);
}

std::string MaternArdKernel::name() const {
  return smoothness_ == MaternSmoothness::three_halves ? "matern32" : "matern52";
}

std::string MaternArdKernel::hyperparameter_name(Index i) const {
  return i == 0 ? "log_variance" : "log_lengthscale_" + std::to_string(i - 1);
}

std::vector<NamedHyperparameter> MaternArdKernel::named_hyperparameters() const {
  return {{"variance", Vector::Constant(1, variance_)}, {"lengthscales", lengthscales_}};
}

Vector MaternArdKernel::hyperparameters() const {
  Vector h(num_hyperparameters());
  h[0] = std::log(variance_);
  h.tail(lengthscales_.size()) = lengthscales_.array().log();
  return h;
}

void MaternArdKernel::set_hyperparameters(const ConstVectorRef& values) {
  kernel_checks::require_hyperparameters(values, num_hyperparameters(), "Matern");
  variance_ = std::exp(values[0]);
  lengthscales_ = values.tail(lengthscales_.size()).array().exp();
}

Matrix MaternArdKernel::scaled_distances(const ConstMatrixRef& X1, const ConstMatrixRef& X2) const {
  require_input_dim(X1, input_dim(), "X1");
  require_input_dim(X2, input_dim(), "X2");
  // Direct differences (no |x|^2 + |x'|^2 - 2 x.x' cancellation): r = 0 comes out exactly 0.
  const Eigen::ArrayXd inv_l = lengthscales_.array().inverse();
  Matrix r2 = Matrix::Zero(X1.rows(), X2.rows());
  for (Index j = 0; j < X2.rows(); ++j)
    for (Index q = 0; q < X1.cols(); ++q)
      r2.col(j).array() += ((X1.col(q).array() - X2(j, q)) * inv_l[q]).square();
  return r2.cwiseSqrt();
}

void MaternArdKernel::cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const {
  K = scaled_distances(X1, X2).unaryExpr(
      [&](double r) { return variance_ * matern_profile(smoothness_, r).value; });
}

void MaternArdKernel::diagonal(const ConstMatrixRef& X, Vector& k) const {
  require_input_dim(X, input_dim(), "X");
  k.setConstant(X.rows(), variance_);
}

void MaternArdKernel::cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2,
                                     const ConstMatrixRef& K, const ConstMatrixRef& G, Matrix* dX1,
                                     Matrix* dX2, VectorRef d_hyper) const {
  // With d_q = x1_q - x2_q and h = theta f'(r) / r:  dk/dx1_q = h d_q / l_q^2 = -dk/dx2_q;
  // dk/dlog(l_q) = -h d_q^2 / l_q^2;  dk/dlog(theta) = k.
  const Matrix r = scaled_distances(X1, X2);
  const Matrix P = G.cwiseProduct(
      r.unaryExpr([&](double v) { return variance_ * matern_profile(smoothness_, v).slope_over_r; }));
  d_hyper[0] += G.cwiseProduct(K).sum();
  const Eigen::ArrayXd inv_l2 = lengthscales_.array().square().inverse();
  Eigen::ArrayXd pd(X1.rows());
  for (Index j = 0; j < X2.rows(); ++j)
    for (Index q = 0; q < X1.cols(); ++q) {
      const Eigen::ArrayXd diff = X1.col(q).array() - X2(j, q);
      pd = P.col(j).array() * diff * inv_l2[q];
      if (dX1) dX1->col(q).array() += pd;
      if (dX2) (*dX2)(j, q) -= pd.sum();
      d_hyper[1 + q] -= (pd * diff).sum();
    }
}

void MaternArdKernel::diagonal_backward(const ConstMatrixRef&, const Vector& g, Matrix*,
                                        VectorRef d_hyper) const {
  d_hyper[0] += variance_ * g.sum();  // k(x, x) = theta: no latent dependence
}

std::vector<Matrix> MaternArdKernel::input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const {
  const Matrix r = scaled_distances(x, Z);
  const Vector inv_l2 = lengthscales_.array().square().inverse();
  std::vector<Matrix> hessians;
  hessians.reserve(static_cast<std::size_t>(Z.rows()));
  for (Index m = 0; m < Z.rows(); ++m) {
    const double rm = r(0, m);
    const Profile p = matern_profile(smoothness_, rm);
    // (g'(r) / r): nu = 5/2: (25 / 3) e^{-a}, smooth; nu = 3/2: 3 sqrt(3) e^{-a} / r, whose term
    // 3 sqrt(3) e^{-a} s s^T / r is O(r) and so 0 at r = 0 (the kernel is twice differentiable there).
    double curvature = 0.0;
    if (smoothness_ == MaternSmoothness::five_halves)
      curvature = (25.0 / 3.0) * std::exp(-std::sqrt(5.0) * rm);
    else if (rm > 0.0)
      curvature = 3.0 * std::sqrt(3.0) * std::exp(-std::sqrt(3.0) * rm) / rm;
    const Vector s = (x.row(0) - Z.row(m)).transpose().cwiseProduct(inv_l2);
    Matrix H = curvature * (s * s.transpose());
    H.diagonal() += p.slope_over_r * inv_l2;
    hessians.push_back(variance_ * H);
  }
  return hessians;
}

Matrix MaternArdKernel::gradient_covariance(const ConstMatrixRef& x) const {
  // Near r = 0, k = theta (1 - c r^2 / 2 + O(r^3)) with c = 3 (nu = 3/2) or 5/3 (nu = 5/2), so the
  // mixed derivative at x' = x is theta c diag(1 / l_q^2) (docs/math/kernels.md).
  require(x.rows() == 1 && x.cols() == input_dim(),
          "gradient_covariance takes one point of the kernel's inputs", {"", "x", std::to_string(x.cols())});
  const double c = smoothness_ == MaternSmoothness::three_halves ? 3.0 : 5.0 / 3.0;
  return Matrix((variance_ * c) * lengthscales_.array().square().inverse().matrix().asDiagonal());
}

}  // namespace gplvm

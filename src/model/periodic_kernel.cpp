#include "gplvm/model/periodic_kernel.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "gplvm/core/error.hpp"
#include "kernel_checks.hpp"

namespace gplvm {
namespace {

using kernel_checks::require_input_dim;
using kernel_checks::require_positive_finite;

}  // namespace

PeriodicKernel::PeriodicKernel(double variance, const Vector& lengthscales, double period)
    : variance_(variance), lengthscales_(lengthscales), period_(period) {
  kernel_checks::require_latent_dim(lengthscales.size(), "periodic");
  require_positive_finite(variance, "kernel.variance");
  for (Index q = 0; q < lengthscales.size(); ++q)
    require_positive_finite(lengthscales[q], "kernel.lengthscale");
  require_positive_finite(period, "kernel.period");
}

std::unique_ptr<Kernel> PeriodicKernel::clone() const {
  return std::make_unique<PeriodicKernel>(*this);
}

std::string PeriodicKernel::hyperparameter_name(Index i) const {
  if (i == 0) return "log_variance";
  if (i == num_hyperparameters() - 1) return "log_period";
  return "log_lengthscale_" + std::to_string(i - 1);
}

std::vector<NamedHyperparameter> PeriodicKernel::named_hyperparameters() const {
  return {{"variance", Vector::Constant(1, variance_)},
          {"lengthscales", lengthscales_},
          {"period", Vector::Constant(1, period_)}};
}

Vector PeriodicKernel::hyperparameters() const {
  Vector h(num_hyperparameters());
  h[0] = std::log(variance_);
  h.segment(1, lengthscales_.size()) = lengthscales_.array().log();
  h[h.size() - 1] = std::log(period_);
  return h;
}

void PeriodicKernel::set_hyperparameters(const ConstVectorRef& values) {
  kernel_checks::require_hyperparameters(values, num_hyperparameters(), "periodic");
  variance_ = std::exp(values[0]);
  lengthscales_ = values.segment(1, lengthscales_.size()).array().exp();
  period_ = std::exp(values[values.size() - 1]);
}

void PeriodicKernel::cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const {
  require_input_dim(X1, input_dim(), "X1");
  require_input_dim(X2, input_dim(), "X2");
  const double omega = std::numbers::pi / period_;
  const Eigen::ArrayXd inv_l2 = lengthscales_.array().square().inverse();
  K.setZero(X1.rows(), X2.rows());
  for (Index j = 0; j < X2.rows(); ++j) {
    auto col = K.col(j).array();
    for (Index q = 0; q < X1.cols(); ++q)
      col += inv_l2[q] * (omega * (X1.col(q).array() - X2(j, q))).sin().square();
    col = variance_ * (-2.0 * col).exp();
  }
}

void PeriodicKernel::diagonal(const ConstMatrixRef& X, Vector& k) const {
  require_input_dim(X, input_dim(), "X");
  k.setConstant(X.rows(), variance_);
}

void PeriodicKernel::cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2,
                                    const ConstMatrixRef& K, const ConstMatrixRef& G, Matrix* dX1,
                                    Matrix* dX2, VectorRef d_hyper) const {
  // With u_q = pi d_q / p (d_q = x1_q - x2_q) and P = G o K:
  //   dk/dx1_q = -k (2 pi / p) sin(2 u_q) / l_q^2 = -dk/dx2_q,
  //   dk/dlog(l_q) = 4 k sin^2(u_q) / l_q^2,   dk/dlog(p) = 2 k sum_q u_q sin(2 u_q) / l_q^2.
  const double omega = std::numbers::pi / period_;
  const Eigen::ArrayXd inv_l2 = lengthscales_.array().square().inverse();
  const Index last = num_hyperparameters() - 1;
  Eigen::ArrayXd p(X1.rows()), u(X1.rows()), s2(X1.rows());
  for (Index j = 0; j < X2.rows(); ++j) {
    p = G.col(j).array() * K.col(j).array();
    d_hyper[0] += p.sum();
    for (Index q = 0; q < X1.cols(); ++q) {
      u = omega * (X1.col(q).array() - X2(j, q));
      s2 = (2.0 * u).sin();
      const Eigen::ArrayXd dx1 = -(2.0 * omega * inv_l2[q]) * p * s2;
      if (dX1) dX1->col(q).array() += dx1;
      if (dX2) (*dX2)(j, q) -= dx1.sum();
      d_hyper[1 + q] += 4.0 * inv_l2[q] * (p * u.sin().square()).sum();
      d_hyper[last] += 2.0 * inv_l2[q] * (p * u * s2).sum();
    }
  }
}

void PeriodicKernel::diagonal_backward(const ConstMatrixRef&, const Vector& g, Matrix*,
                                       VectorRef d_hyper) const {
  d_hyper[0] += variance_ * g.sum();  // k(x, x) = theta
}

std::vector<Matrix> PeriodicKernel::input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const {
  require_input_dim(x, input_dim(), "x");
  require_input_dim(Z, input_dim(), "Z");
  const double omega = std::numbers::pi / period_;
  const Eigen::ArrayXd inv_l2 = lengthscales_.array().square().inverse();
  Matrix K;
  cross(x, Z, K);
  std::vector<Matrix> hessians;
  hessians.reserve(static_cast<std::size_t>(Z.rows()));
  for (Index m = 0; m < Z.rows(); ++m) {
    const Eigen::ArrayXd u = omega * (x.row(0) - Z.row(m)).transpose().array();
    const Vector a = (-2.0 * omega * inv_l2 * (2.0 * u).sin()).matrix();
    Matrix H = a * a.transpose();
    H.diagonal().array() -= 4.0 * omega * omega * inv_l2 * (2.0 * u).cos();
    hessians.push_back(K(0, m) * H);
  }
  return hessians;
}

Matrix PeriodicKernel::gradient_covariance(const ConstMatrixRef& x) const {
  // Near d = 0, sin^2(pi d_q / p) = (pi d_q / p)^2 + O(d^4): k = theta (1 - 2 sum_q (pi d_q / (p l_q))^2 +
  // ...), so the mixed derivative at x' = x is theta diag(4 pi^2 / (p^2 l_q^2)).
  require_input_dim(x, input_dim(), "x");
  const double omega = std::numbers::pi / period_;
  return Matrix((4.0 * variance_ * omega * omega) *
                lengthscales_.array().square().inverse().matrix().asDiagonal());
}

}  // namespace gplvm

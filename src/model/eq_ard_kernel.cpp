#include "gplvm/model/eq_ard_kernel.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"

namespace gplvm {
namespace {

void require_positive_finite(double v, const std::string& key) {
  require(std::isfinite(v) && v > 0.0, "kernel hyperparameter must be positive and finite",
          {"", key, std::to_string(v)});
}

void require_input_dim(const ConstMatrixRef& X, Index q, const char* which) {
  require(X.cols() == q, std::string("kernel input ") + which + " has the wrong number of latent dimensions",
          {"", "latent_dim", std::to_string(X.cols())});
}

}  // namespace

EqArdKernel::EqArdKernel(double variance, const Vector& lengthscales)
    : variance_(variance), lengthscales_(lengthscales) {
  require(lengthscales.size() >= 1, "EQ-ARD kernel needs at least one lengthscale (Q >= 1)",
          {"", "latent_dim", std::to_string(lengthscales.size())});
  require_positive_finite(variance, "kernel.variance");
  for (Index q = 0; q < lengthscales.size(); ++q)
    require_positive_finite(lengthscales[q], "kernel.lengthscale");
}

EqArdKernel::EqArdKernel(double variance, double lengthscale, Index input_dim)
    : EqArdKernel(variance, Vector::Constant(std::max<Index>(input_dim, 0), lengthscale)) {}

std::unique_ptr<Kernel> EqArdKernel::clone() const {
  return std::make_unique<EqArdKernel>(*this);
}

std::string EqArdKernel::hyperparameter_name(Index i) const {
  return i == 0 ? "log_variance" : "log_lengthscale_" + std::to_string(i - 1);
}

Vector EqArdKernel::hyperparameters() const {
  Vector h(num_hyperparameters());
  h[0] = std::log(variance_);
  h.tail(lengthscales_.size()) = lengthscales_.array().log();
  return h;
}

void EqArdKernel::set_hyperparameters(const ConstVectorRef& values) {
  require(values.size() == num_hyperparameters(), "wrong number of EQ-ARD hyperparameters",
          {"", "kernel", std::to_string(values.size())});
  require(values.allFinite(), "EQ-ARD hyperparameters must be finite", {"", "kernel", "non-finite"});
  variance_ = std::exp(values[0]);
  lengthscales_ = values.tail(lengthscales_.size()).array().exp();
}

void EqArdKernel::cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const {
  require_input_dim(X1, input_dim(), "X1");
  require_input_dim(X2, input_dim(), "X2");
  // Direct differences rather than |x|^2 + |x'|^2 - 2 x.x': no cancellation, and Q is small.
  K.resize(X1.rows(), X2.rows());
  const Eigen::ArrayXd inv_l = lengthscales_.array().inverse();
  // Columns are independent: the rank's threads take a block of them each.
  constexpr Index kColumnsPerShareUnit = 16;
  for_each_thread_share(X2.rows(), kColumnsPerShareUnit, [&](Index j0, Index j1) {
    for (Index j = j0; j < j1; ++j) {
      auto col = K.col(j).array();
      col.setZero();
      for (Index q = 0; q < X1.cols(); ++q) col += ((X1.col(q).array() - X2(j, q)) * inv_l[q]).square();
      col = variance_ * (-0.5 * col).exp();
    }
  });
}

void EqArdKernel::diagonal(const ConstMatrixRef& X, Vector& k) const {
  require_input_dim(X, input_dim(), "X");
  k.setConstant(X.rows(), variance_);
}

void EqArdKernel::cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                                 const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const {
  // With P = G o K:  dk/dlog(theta) = k;  dk/dlog(l_q) = k d_q^2 / l_q^2;
  // dk/dx1_q = -k d_q / l_q^2 = -dk/dx2_q, where d_q = x1_q - x2_q.
  const Eigen::ArrayXd inv_l2 = lengthscales_.array().square().inverse();
  Eigen::ArrayXd p(X1.rows()), pd(X1.rows()), diff(X1.rows());
  for (Index j = 0; j < X2.rows(); ++j) {
    p = G.col(j).array() * K.col(j).array();
    d_hyper[0] += p.sum();
    for (Index q = 0; q < X1.cols(); ++q) {
      diff = X1.col(q).array() - X2(j, q);
      pd = p * diff;
      if (dX1) dX1->col(q).array() -= inv_l2[q] * pd;
      if (dX2) (*dX2)(j, q) += inv_l2[q] * pd.sum();
      d_hyper[1 + q] += inv_l2[q] * (pd * diff).sum();
    }
  }
}

void EqArdKernel::diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                                    VectorRef d_hyper) const {
  d_hyper[0] += variance_ * g.sum();  // k(x, x) = theta: no latent dependence
}

}  // namespace gplvm

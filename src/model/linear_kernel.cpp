#include "gplvm/model/linear_kernel.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "kernel_checks.hpp"
#include "psi_checks.hpp"

namespace gplvm {
namespace {

using kernel_checks::require_input_dim;

}  // namespace

LinearArdKernel::LinearArdKernel(const Vector& variances) : variances_(variances) {
  kernel_checks::require_latent_dim(variances.size(), "linear");
  for (Index q = 0; q < variances.size(); ++q)
    kernel_checks::require_positive_finite(variances[q], "kernel.variance");
}

std::unique_ptr<Kernel> LinearArdKernel::clone() const {
  return std::make_unique<LinearArdKernel>(*this);
}

std::string LinearArdKernel::hyperparameter_name(Index i) const {
  return "log_variance_" + std::to_string(i);
}

std::vector<NamedHyperparameter> LinearArdKernel::named_hyperparameters() const {
  return {{"variances", variances_}};
}

Vector LinearArdKernel::hyperparameters() const {
  return variances_.array().log();
}

void LinearArdKernel::set_hyperparameters(const ConstVectorRef& values) {
  kernel_checks::require_hyperparameters(values, num_hyperparameters(), "linear");
  variances_ = values.array().exp();
}

void LinearArdKernel::cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const {
  require_input_dim(X1, input_dim(), "X1");
  require_input_dim(X2, input_dim(), "X2");
  K.noalias() = X1 * variances_.asDiagonal() * X2.transpose();
}

void LinearArdKernel::diagonal(const ConstMatrixRef& X, Vector& k) const {
  require_input_dim(X, input_dim(), "X");
  k.noalias() = X.array().square().matrix() * variances_;
}

void LinearArdKernel::cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2,
                                     const ConstMatrixRef&, const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2,
                                     VectorRef d_hyper) const {
  // K = X1 A X2^T:  dX1 = G X2 A,  dX2 = G^T X1 A,  dlog(a_q) = a_q (X1^T G X2)_qq.
  const Matrix GX2 = G * X2;
  d_hyper += variances_.cwiseProduct(X1.cwiseProduct(GX2).colwise().sum().transpose());
  if (dX1) dX1->noalias() += GX2 * variances_.asDiagonal();
  if (dX2) dX2->noalias() += G.transpose() * X1 * variances_.asDiagonal();
}

void LinearArdKernel::diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                                        VectorRef d_hyper) const {
  // k_i = sum_q a_q x_iq^2.
  d_hyper += variances_.cwiseProduct(X.array().square().matrix().transpose() * g);
  if (dX) dX->noalias() += 2.0 * g.asDiagonal() * X * variances_.asDiagonal();
}

void LinearArdKernel::psi_statistics(const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                                     const ConstMatrixRef& Z, PsiStatistics& out) const {
  psi_checks::require_psi_inputs(mean, variance, Z, input_dim());
  // E[x x^T] = mu mu^T + diag(s) for each row, so with A = diag(a):
  //   psi0 = sum_nq a_q (mu_nq^2 + s_nq),  psi1 = mu A Z^T,  psi2 = (Z A) C (Z A)^T,
  //   C = mu^T mu + diag(sum_n s_n).
  out.psi0 = (mean.array().square() + variance.array()).colwise().sum().matrix().dot(variances_);
  const Matrix ZA = Z * variances_.asDiagonal();
  out.psi1.noalias() = mean * ZA.transpose();
  Matrix C = mean.transpose() * mean;
  C.diagonal() += variance.colwise().sum().transpose();
  out.psi2.noalias() = ZA * C * ZA.transpose();
}

void LinearArdKernel::psi_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                                   const ConstMatrixRef& Z, const PsiStatistics&, double d_psi0,
                                   const ConstMatrixRef& d_psi1, const ConstMatrixRef& d_psi2, Matrix* d_mean,
                                   Matrix* d_variance, Matrix* dZ, VectorRef d_hyper) const {
  psi_checks::require_psi_adjoints(mean, Z, d_psi1, d_psi2);
  const Vector& a = variances_;
  const Matrix ZA = Z * a.asDiagonal();
  const Matrix D2 = 0.5 * (d_psi2 + d_psi2.transpose());  // psi2 is symmetric: only its symmetric part counts
  Matrix C = mean.transpose() * mean;
  C.diagonal() += variance.colwise().sum().transpose();
  // psi2 = W C W^T with W = Z A:  dL/dW = 2 D2 W C,  dL/dC = W^T D2 W =: H.
  const Matrix H = ZA.transpose() * D2 * ZA;
  Matrix dW = 2.0 * D2 * ZA * C;
  // psi1 = mu W^T:  dL/dW += d_psi1^T mu.
  dW.noalias() += d_psi1.transpose() * mean;
  // W = Z A:  dZ = dW A,  dlog(a_q) = a_q sum_m z_mq dW_mq;  psi0 adds d_psi0 a_q sum_n (mu^2 + s).
  d_hyper += a.cwiseProduct(Z.cwiseProduct(dW).colwise().sum().transpose());
  d_hyper += d_psi0 *
             a.cwiseProduct((mean.array().square() + variance.array()).colwise().sum().matrix().transpose());
  if (dZ) dZ->noalias() += dW * a.asDiagonal();
  if (d_mean) {
    d_mean->noalias() += 2.0 * mean * H;                          // through C = mu^T mu + ...
    d_mean->noalias() += d_psi1 * ZA;                             // through psi1 = mu W^T
    d_mean->noalias() += (2.0 * d_psi0) * mean * a.asDiagonal();  // through psi0
  }
  if (d_variance) {
    const Vector per_dim = H.diagonal() + d_psi0 * a;
    d_variance->rowwise() += per_dim.transpose();
  }
}

std::vector<Matrix> LinearArdKernel::input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const {
  require(x.rows() == 1 && x.cols() == input_dim() && Z.cols() == input_dim(),
          "input_hessians takes one point and rows of the kernel's inputs",
          {"", "x", std::to_string(x.cols())});
  return std::vector<Matrix>(static_cast<std::size_t>(Z.rows()), Matrix::Zero(input_dim(), input_dim()));
}

std::vector<Matrix> LinearArdKernel::gradient_covariance_derivatives(const ConstMatrixRef& x) const {
  require(x.rows() == 1 && x.cols() == input_dim(),
          "gradient_covariance_derivatives takes one point of the kernel's inputs",
          {"", "x", std::to_string(x.cols())});
  return std::vector<Matrix>(static_cast<std::size_t>(input_dim()), Matrix::Zero(input_dim(), input_dim()));
}

Matrix LinearArdKernel::gradient_covariance(const ConstMatrixRef& x) const {
  // k = sum_q a_q x_q x'_q: d^2 k / dx_a dx'_b = a_a delta_ab everywhere.
  require(x.rows() == 1 && x.cols() == input_dim(),
          "gradient_covariance takes one point of the kernel's inputs", {"", "x", std::to_string(x.cols())});
  return Matrix(variances_.asDiagonal());
}

}  // namespace gplvm

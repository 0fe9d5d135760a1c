#include "gplvm/model/kernel.hpp"

#include <cmath>

#include "gplvm/core/error.hpp"
#include "psi_checks.hpp"

namespace gplvm {
namespace {

// The inputs at node k for every row: x_n = mu_n + sqrt(s_n) o e_k.
void node_inputs(const ConstMatrixRef& mean, const Matrix& std_dev, const PsiNodes& nodes, Index k,
                 Matrix& X) {
  X = mean + std_dev * nodes.epsilon.row(k).asDiagonal();
}

}  // namespace

Matrix Kernel::input_gradients(const ConstMatrixRef& x, const ConstMatrixRef& Z) const {
  require(x.rows() == 1 && x.cols() == input_dim(), "input_gradients takes one point of the kernel's inputs",
          {"", "x", std::to_string(x.rows()) + " x " + std::to_string(x.cols())});
  // cross_backward with dL/dK = 1 on the one entry k(x, z_m) returns exactly d k(x, z_m) / dx.
  Matrix gradients = Matrix::Zero(Z.rows(), input_dim());
  Matrix K, dx(1, input_dim());
  const Matrix unit = Matrix::Ones(1, 1);
  Vector d_hyper(num_hyperparameters());
  for (Index m = 0; m < Z.rows(); ++m) {
    cross(x, Z.row(m), K);
    dx.setZero();
    d_hyper.setZero();
    cross_backward(x, Z.row(m), K, unit, &dx, nullptr, d_hyper);
    gradients.row(m) = dx;
  }
  return gradients;
}

void Kernel::diagonal_input_gradients(const ConstMatrixRef& x, Matrix& d_first, Matrix& d_second) const {
  // Two copies of the point, so that cross_backward keeps the two arguments' adjoints apart.
  const Matrix first = x, second = x;
  Matrix K;
  cross(first, second, K);
  d_first.setZero(1, input_dim());
  d_second.setZero(1, input_dim());
  Vector d_hyper = Vector::Zero(num_hyperparameters());
  cross_backward(first, second, K, Matrix::Ones(1, 1), &d_first, &d_second, d_hyper);
}

Matrix Kernel::gradient_covariance(const ConstMatrixRef&) const {
  throw InputError("the kernel '" + name() +
                       "' declares no mixed second input derivative, which the Jacobian of the "
                       "predictive mean and its covariance need (a GP with this kernel may not be "
                       "differentiable); choose a differentiable kernel (eq_ard, matern32, matern52, "
                       "linear, periodic, sphere_eq, or their sums and products)",
                   {"", "model.kernel", name()});
}

std::vector<Matrix> Kernel::input_hessians(const ConstMatrixRef&, const ConstMatrixRef&) const {
  throw InputError("the kernel '" + name() +
                       "' declares no second input derivative, which the Christoffel symbols of the "
                       "expected metric need; choose one that does (eq_ard, matern32, matern52, linear, "
                       "periodic, sphere_eq, or their sums and products)",
                   {"", "model.kernel", name()});
}

std::vector<Matrix> Kernel::gradient_covariance_derivatives(const ConstMatrixRef& x) const {
  if (is_stationary())
    return std::vector<Matrix>(static_cast<std::size_t>(input_dim()), Matrix::Zero(input_dim(), input_dim()));
  throw InputError("the kernel '" + name() +
                       "' is not stationary and declares no derivative of its Jacobian covariance, which "
                       "the Christoffel symbols of the expected metric need; choose a stationary kernel, "
                       "linear, sphere_eq, or a sum of them",
                   {"", "model.kernel", name()});
}

// psi0 = sum_k w_k sum_n k(x_nk, x_nk),  psi1 = sum_k w_k K(X_k, Z),  psi2 = sum_k w_k K_k^T K_k,
// with X_k the inputs at node k (docs/math/kernels.md).
void Kernel::psi_statistics(const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                            const ConstMatrixRef& Z, PsiStatistics& out) const {
  psi_checks::require_psi_inputs(mean, variance, Z, input_dim());
  const PsiNodes nodes = psi_nodes(input_dim(), psi_quadrature_);
  const Matrix std_dev = variance.cwiseSqrt();
  out.psi0 = 0.0;
  out.psi1.setZero(mean.rows(), Z.rows());
  out.psi2.setZero(Z.rows(), Z.rows());
  Matrix X, K;
  Vector diag;
  for (Index k = 0; k < nodes.weights.size(); ++k) {
    const double w = nodes.weights[k];
    node_inputs(mean, std_dev, nodes, k, X);
    cross(X, Z, K);
    diagonal(X, diag);
    out.psi0 += w * diag.sum();
    out.psi1 += w * K;
    out.psi2.selfadjointView<Eigen::Lower>().rankUpdate(K.transpose(), w);
  }
  out.psi2.triangularView<Eigen::StrictlyUpper>() = out.psi2.transpose();
}

// Through the nodes: dL/dK_k = w_k (d_psi1 + K_k (d_psi2 + d_psi2^T)) and dL/dk_nn = w_k d_psi0 go
// to cross_backward and diagonal_backward, which give dL/dX_k; then dmu += dX_k and
// ds += dX_k o e_k / (2 sqrt(s)), since dx/dmu = 1 and dx/ds = e / (2 sqrt(s)).
void Kernel::psi_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& Z,
                          const PsiStatistics&, double d_psi0, const ConstMatrixRef& d_psi1,
                          const ConstMatrixRef& d_psi2, Matrix* d_mean, Matrix* d_variance, Matrix* dZ,
                          VectorRef d_hyper) const {
  psi_checks::require_psi_inputs(mean, variance, Z, input_dim());
  psi_checks::require_psi_adjoints(mean, Z, d_psi1, d_psi2);
  if (d_variance && !(variance.array() > 0.0).all())
    throw InputError("the variance adjoint of the numerical psi-statistics needs every variance > 0",
                     {"", "variance", "0"});
  const PsiNodes nodes = psi_nodes(input_dim(), psi_quadrature_);
  const Matrix std_dev = variance.cwiseSqrt();
  const Matrix d_psi2_sym = d_psi2 + d_psi2.transpose();
  const bool want_dX = d_mean || d_variance;
  Matrix X, K, G, dX;
  const Vector g_diag = Vector::Ones(mean.rows());
  for (Index k = 0; k < nodes.weights.size(); ++k) {
    const double w = nodes.weights[k];
    node_inputs(mean, std_dev, nodes, k, X);
    cross(X, Z, K);
    G = d_psi1;
    G.noalias() += K * d_psi2_sym;
    G *= w;
    if (want_dX) dX.setZero(X.rows(), X.cols());
    cross_backward(X, Z, K, G, want_dX ? &dX : nullptr, dZ, d_hyper);
    diagonal_backward(X, (w * d_psi0) * g_diag, want_dX ? &dX : nullptr, d_hyper);
    if (d_mean) *d_mean += dX;
    if (d_variance)
      d_variance->array() +=
          dX.array() * (0.5 * nodes.epsilon.row(k)).replicate(X.rows(), 1).array() / std_dev.array();
  }
}

}  // namespace gplvm

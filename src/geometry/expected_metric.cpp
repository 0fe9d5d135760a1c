#include "gplvm/geometry/expected_metric.hpp"

#include <Eigen/Cholesky>

#include <cmath>
#include <limits>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// d_k G_x: column j of its (M x Q) matrix holds d^2 k(x, z_m) / dx_j dx_k over m.
Matrix gradient_derivative(const std::vector<Matrix>& hessians, Index k, Index q) {
  Matrix out(static_cast<Index>(hessians.size()), q);
  for (std::size_t m = 0; m < hessians.size(); ++m)
    out.row(static_cast<Index>(m)) = hessians[m].col(k).transpose();
  return out;
}

Matrix symmetrised_twice(const Matrix& A) {
  return A + A.transpose();
}

}  // namespace

std::vector<Matrix> ExpectedMetric::metrics(const ConstMatrixRef& X) const {
  const JacobianPrediction J = posterior_.jacobian(X);
  const auto D = static_cast<double>(posterior_.output_dim());
  std::vector<Matrix> out;
  out.reserve(J.mean.size());
  for (std::size_t i = 0; i < J.mean.size(); ++i) {
    Matrix G = J.mean[i].transpose() * J.mean[i];
    G += D * J.covariance[i];
    out.push_back(std::move(G));
  }
  return out;
}

MetricWithDerivatives ExpectedMetric::with_derivatives(const ConstMatrixRef& x) const {
  require(x.rows() == 1 && x.cols() == dim(), "the metric's derivatives are taken at one latent point",
          {"", "latent", std::to_string(x.rows()) + " x " + std::to_string(x.cols())});
  const Kernel& kernel = posterior_.kernel();
  const Index q = dim();
  const auto D = static_cast<double>(posterior_.output_dim());
  const Matrix& alpha = posterior_.weights();
  const Matrix* spread = posterior_.spread_root_transposed();

  const Matrix gradients = kernel.input_gradients(x, posterior_.inputs());  // G_x (M x Q)
  const std::vector<Matrix> hessians = kernel.input_hessians(x, posterior_.inputs());
  const std::vector<Matrix> prior_derivatives = kernel.gradient_covariance_derivatives(x);
  const Matrix mean = alpha.transpose() * gradients;  // E[J] (D x Q)
  Matrix whitened = gradients;                        // L^{-1} G_x
  posterior_.factor().solve_lower_in_place(whitened);
  Matrix covariance = kernel.gradient_covariance(x) - whitened.transpose() * whitened;
  Matrix retained;
  if (spread) {
    retained = *spread * gradients;  // R^T G_x
    covariance.noalias() += retained.transpose() * retained;
  }
  MetricWithDerivatives out;
  out.metric = mean.transpose() * mean + D * covariance;
  out.derivatives.reserve(static_cast<std::size_t>(q));
  for (Index k = 0; k < q; ++k) {
    const Matrix dG = gradient_derivative(hessians, k, q);
    const Matrix d_mean = alpha.transpose() * dG;
    Matrix d_whitened = dG;
    posterior_.factor().solve_lower_in_place(d_whitened);
    Matrix d_covariance =
        prior_derivatives[static_cast<std::size_t>(k)] - symmetrised_twice(d_whitened.transpose() * whitened);
    if (spread) d_covariance += symmetrised_twice((*spread * dG).transpose() * retained);
    out.derivatives.push_back(symmetrised_twice(d_mean.transpose() * mean) + D * d_covariance);
  }
  return out;
}

std::vector<Matrix> ExpectedMetric::christoffel_symbols(const ConstMatrixRef& x) const {
  return gplvm::christoffel_symbols(with_derivatives(x));
}

std::vector<Matrix> christoffel_symbols(const MetricWithDerivatives& g) {
  const Index q = g.metric.rows();
  // First kind: Gamma_{l,jk} = (d_j g_lk + d_k g_lj - d_l g_jk) / 2; then raise l with g^{-1}.
  std::vector<Matrix> first(static_cast<std::size_t>(q), Matrix(q, q));
  for (Index l = 0; l < q; ++l)
    for (Index j = 0; j < q; ++j)
      for (Index k = 0; k < q; ++k)
        first[l](j, k) = 0.5 * (g.derivatives[j](l, k) + g.derivatives[k](l, j) - g.derivatives[l](j, k));
  const Matrix inverse = g.metric.ldlt().solve(Matrix::Identity(q, q));
  std::vector<Matrix> second(static_cast<std::size_t>(q), Matrix::Zero(q, q));
  for (Index i = 0; i < q; ++i)
    for (Index l = 0; l < q; ++l) second[i] += inverse(i, l) * first[l];
  return second;
}

double log_volume_element(const Matrix& metric) {
  const Eigen::LLT<Matrix> llt(metric);
  if (llt.info() != Eigen::Success) return -std::numeric_limits<double>::infinity();
  return llt.matrixLLT().diagonal().array().log().sum();
}

Matrix pulled_back(const Matrix& metric, const Matrix& basis) {
  return basis.transpose() * metric * basis;
}

}  // namespace gplvm

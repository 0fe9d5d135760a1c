#pragma once
// The expected Riemannian metric a GP decoder induces on its latent space (docs/math/geometry.md).
// The Jacobian J (D x Q) of the decoder at x has independent Gaussian rows with mean E[J] and the
// shared covariance Sigma_J (models/gp_posterior.hpp), so the pull-back metric G = J^T J has
//   E[G](x) = E[J]^T E[J] + D Sigma_J,
// which grows where the decoder is uncertain, so that curves that follow it stay near the data.
// Its derivatives come from the kernel's second input derivatives:
//   d_k E[J] = alpha^T d_k G_x,
//   d_k Sigma_J = d_k H - sym2((L^{-1} d_k G_x)^T (L^{-1} G_x)) + sym2((R^T d_k G_x)^T (R^T G_x)),
// with G_x = dk(Z, x)/dx, H the kernel's gradient covariance and sym2(A) = A + A^T; the Christoffel
// symbols of E[G] (the metric the curves use) follow as Gamma^i_jk = g^il (d_j g_lk + d_k g_lj - d_l g_jk)
// / 2. Coordinates are the kernel's input coordinates (the ambient ones of a curved latent space;
// pulled_back() restricts a metric to a tangent basis).
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/models/gp_posterior.hpp"

namespace gplvm {

struct MetricWithDerivatives {
  Matrix metric;                    // E[G] (Q x Q)
  std::vector<Matrix> derivatives;  // entry k: d E[G] / d x_k (Q x Q)
};

class ExpectedMetric {
 public:
  // Keeps a reference: the posterior must outlive the metric.
  explicit ExpectedMetric(const GpPosterior& posterior) : posterior_(posterior) {}

  Index dim() const noexcept { return posterior_.kernel().input_dim(); }
  const GpPosterior& posterior() const noexcept { return posterior_; }

  // E[G] at each row of X (one matrix per row).
  std::vector<Matrix> metrics(const ConstMatrixRef& X) const;
  Matrix metric(const ConstMatrixRef& x) const { return metrics(x).front(); }
  // E[G] and its derivatives at one point (1 x Q). InputError naming model.kernel for a kernel
  // without second input derivatives.
  MetricWithDerivatives with_derivatives(const ConstMatrixRef& x) const;
  // Gamma[i](j, k) = Gamma^i_jk of E[G] at one point.
  std::vector<Matrix> christoffel_symbols(const ConstMatrixRef& x) const;

 private:
  const GpPosterior& posterior_;
};

// Gamma[i](j, k) from a metric and its coordinate derivatives (the Levi-Civita connection).
std::vector<Matrix> christoffel_symbols(const MetricWithDerivatives& g);

// log sqrt(det G), the log of the magnification factor (the volume element), by Cholesky; -inf
// for a metric that is not positive definite.
double log_volume_element(const Matrix& metric);

// B^T G B: the metric restricted to the span of the columns of B (a tangent basis of a curved
// latent space at the point, in the ambient coordinates G is written in).
Matrix pulled_back(const Matrix& metric, const Matrix& basis);

}  // namespace gplvm

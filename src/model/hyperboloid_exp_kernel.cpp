#include "gplvm/model/hyperboloid_exp_kernel.hpp"

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/model/lorentz_geometry.hpp"
#include "kernel_checks.hpp"

namespace gplvm {
namespace {

using kernel_checks::require_input_dim;
using kernel_checks::require_positive_finite;

[[noreturn]] void psi_not_supported() {
  throw InputError(
      "hyperboloid_exp has no Psi-statistics: the generic ones integrate over Gaussian inputs in ambient "
      "coordinates, off the hyperboloid (use a model without Psi-statistics)",
      {"", "model.kernel", "hyperboloid_exp"});
}

// out += c flip_time(a - u b) over n coordinates (time-like first).
void add_flipped(double* out, double c, const double* a, double u, const double* b, Index n) {
  out[0] -= c * (a[0] - u * b[0]);
  for (Index k = 1; k < n; ++k) out[k] += c * (a[k] - u * b[k]);
}

}  // namespace

HyperboloidExpKernel::HyperboloidExpKernel(double variance, double kappa, Index ambient_dim)
    : variance_(variance), kappa_(kappa), ambient_dim_(ambient_dim) {
  if (ambient_dim < 2)
    throw InputError("hyperboloid_exp needs Lorentz coordinates: Q + 1 >= 2 input columns",
                     {"", "latent_dim", std::to_string(ambient_dim)});
  require_positive_finite(variance, "kernel.variance");
  require_positive_finite(kappa, "kernel.kappa");
}

std::unique_ptr<Kernel> HyperboloidExpKernel::clone() const {
  return std::make_unique<HyperboloidExpKernel>(*this);
}

std::string HyperboloidExpKernel::hyperparameter_name(Index i) const {
  return i == 0 ? "log_variance" : "log_kappa";
}

std::vector<NamedHyperparameter> HyperboloidExpKernel::named_hyperparameters() const {
  return {{"variance", Vector::Constant(1, variance_)}, {"kappa", Vector::Constant(1, kappa_)}};
}

Vector HyperboloidExpKernel::hyperparameters() const {
  return Vector{{std::log(variance_), std::log(kappa_)}};
}

void HyperboloidExpKernel::set_hyperparameters(const ConstVectorRef& values) {
  kernel_checks::require_hyperparameters(values, 2, "hyperboloid_exp");
  variance_ = std::exp(values[0]);
  kappa_ = std::exp(values[1]);
}

void HyperboloidExpKernel::cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const {
  require_input_dim(X1, ambient_dim_, "X1");
  require_input_dim(X2, ambient_dim_, "X2");
  K = variance_ * (-lorentz::pairwise_distances(X1, X2).array() / kappa_).exp();  // vectorised exp
}

void HyperboloidExpKernel::diagonal(const ConstMatrixRef& X, Vector& k) const {
  require_input_dim(X, ambient_dim_, "X");
  k.setConstant(X.rows(), variance_);
}

void HyperboloidExpKernel::cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2,
                                          const ConstMatrixRef& K, const ConstMatrixRef& G, Matrix* dX1,
                                          Matrix* dX2, VectorRef d_hyper) const {
  require_input_dim(X1, ambient_dim_, "X1");
  require_input_dim(X2, ambient_dim_, "X2");
  // dk/dlog sigma = k; dk/dlog kappa = k d / kappa = -k log(k / sigma), read off the forward's K
  // (one vectorised log instead of a second arccosh per pair; the error is rounding in log k, so
  // absolute in k d / kappa). Where k underflowed to 0 the term is 0, not 0 * inf.
  const auto k = K.array();
  d_hyper[0] += (G.array() * k).sum();
  d_hyper[1] -= (k > 0.0).select(G.array() * k * (k / variance_).log(), 0.0).sum();
  if (!dX1 && !dX2) return;
  // Inputs: the file comment's tangent gradient, c (z - u x) with c = G k / (kappa sinh d), sinh d
  // from u without a transcendental function. Points as contiguous columns, gradients accumulated
  // per column and added once; flip_time(v) negates v's time-like coordinate.
  const Index n = ambient_dim_;
  const Matrix A = X1.transpose(), B = X2.transpose();
  Matrix dA = Matrix::Zero(n, dX1 ? A.cols() : 0), dB = Matrix::Zero(n, dX2 ? B.cols() : 0);
  for (Index j = 0; j < B.cols(); ++j) {
    const double* z = B.col(j).data();
    for (Index i = 0; i < A.cols(); ++i) {
      if (G(i, j) == 0.0 || K(i, j) == 0.0) continue;  // no contribution (k underflowed: d/kappa > 745)
      const double* x = A.col(i).data();
      const lorentz::ProductGap gap = lorentz::product_gap(x, z, n);
      const double sinh_d = lorentz::sinh_distance(gap);
      if (sinh_d == 0.0) continue;  // coincident points: the cusp's subgradient 0
      const double c = G(i, j) * K(i, j) / (kappa_ * sinh_d);
      if (dX1) add_flipped(dA.col(i).data(), c, z, gap.u, x, n);
      if (dX2) add_flipped(dB.col(j).data(), c, x, gap.u, z, n);
    }
  }
  if (dX1) *dX1 += dA.transpose();
  if (dX2) *dX2 += dB.transpose();
}

void HyperboloidExpKernel::diagonal_backward(const ConstMatrixRef&, const Vector& g, Matrix*,
                                             VectorRef d_hyper) const {
  d_hyper[0] += variance_ * g.sum();  // k(x, x) = sigma: no input or kappa dependence
}

void HyperboloidExpKernel::psi_statistics(const ConstMatrixRef&, const ConstMatrixRef&, const ConstMatrixRef&,
                                          PsiStatistics&) const {
  psi_not_supported();
}

void HyperboloidExpKernel::psi_backward(const ConstMatrixRef&, const ConstMatrixRef&, const ConstMatrixRef&,
                                        const PsiStatistics&, double, const ConstMatrixRef&,
                                        const ConstMatrixRef&, Matrix*, Matrix*, Matrix*, VectorRef) const {
  psi_not_supported();
}

}  // namespace gplvm

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
  K = lorentz::pairwise_distances(X1, X2).unaryExpr(
      [&](double d) { return variance_ * std::exp(-d / kappa_); });
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
  // dk/dlog sigma = k, dk/dlog kappa = k d / kappa; inputs: the file comment's tangent gradient.
  const Matrix D = lorentz::pairwise_distances(X1, X2);
  d_hyper[0] += G.cwiseProduct(K).sum();
  d_hyper[1] += (G.array() * K.array() * D.array()).sum() / kappa_;
  if (!dX1 && !dX2) return;
  // Row expressions throughout: no allocation per pair. flip_time(v) negates v's time-like
  // coordinate, applied below as the row update minus twice its first entry.
  const Index space = ambient_dim_ - 1;
  for (Index j = 0; j < X2.rows(); ++j) {
    const auto z = X2.row(j);
    for (Index i = 0; i < X1.rows(); ++i) {
      const double d = D(i, j);
      if (d == 0.0 || G(i, j) == 0.0) continue;  // coincident points: the cusp's subgradient 0
      const auto x = X1.row(i);
      const double u = x(0) * z(0) - x.tail(space).dot(z.tail(space));  // -<x, z>_L
      const double c = G(i, j) * K(i, j) / (kappa_ * std::sinh(d));
      if (dX1) {
        dX1->row(i) += c * (z - u * x);
        (*dX1)(i, 0) -= 2.0 * c * (z(0) - u * x(0));
      }
      if (dX2) {
        dX2->row(j) += c * (x - u * z);
        (*dX2)(j, 0) -= 2.0 * c * (x(0) - u * z(0));
      }
    }
  }
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

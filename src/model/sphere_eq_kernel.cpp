#include "gplvm/model/sphere_eq_kernel.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "kernel_checks.hpp"

namespace gplvm {
namespace {

[[noreturn]] void psi_not_supported() {
  throw InputError(
      "sphere_eq has no Psi-statistics: they integrate over Gaussian inputs in ambient coordinates, off the "
      "sphere (use a model without Psi-statistics)",
      {"", "model.kernel", "sphere_eq"});
}

}  // namespace

EqArdKernel SphereEqKernel::tied(double variance, double lengthscale, Index ambient_dim) {
  if (ambient_dim < 2)
    throw InputError("sphere_eq needs unit vectors in R^{Q+1}: Q + 1 >= 2 input columns",
                     {"", "latent_dim", std::to_string(ambient_dim)});
  kernel_checks::require_positive_finite(variance, "kernel.variance");
  kernel_checks::require_positive_finite(lengthscale, "kernel.lengthscale");
  return EqArdKernel(variance, lengthscale, ambient_dim);
}

void SphereEqKernel::add_tied(const Vector& eq_gradient, VectorRef d_hyper) {
  d_hyper[0] += eq_gradient[0];
  d_hyper[1] += eq_gradient.tail(eq_gradient.size() - 1).sum();  // every l_q is l
}

SphereEqKernel::SphereEqKernel(double variance, double lengthscale, Index ambient_dim)
    : eq_(tied(variance, lengthscale, ambient_dim)) {}

std::unique_ptr<Kernel> SphereEqKernel::clone() const {
  return std::make_unique<SphereEqKernel>(*this);
}

std::string SphereEqKernel::hyperparameter_name(Index i) const {
  return i == 0 ? "log_variance" : "log_lengthscale";
}

std::vector<NamedHyperparameter> SphereEqKernel::named_hyperparameters() const {
  return {{"variance", Vector::Constant(1, variance())},
          {"lengthscales", Vector::Constant(1, lengthscale())}};
}

Vector SphereEqKernel::hyperparameters() const {
  return Vector{{std::log(variance()), std::log(lengthscale())}};
}

void SphereEqKernel::set_hyperparameters(const ConstVectorRef& values) {
  kernel_checks::require_hyperparameters(values, 2, "sphere_eq");
  Vector expanded(eq_.num_hyperparameters());
  expanded[0] = values[0];
  expanded.tail(expanded.size() - 1).setConstant(values[1]);
  eq_.set_hyperparameters(expanded);
}

void SphereEqKernel::cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const {
  eq_.cross(X1, X2, K);
}

void SphereEqKernel::diagonal(const ConstMatrixRef& X, Vector& k) const {
  eq_.diagonal(X, k);
}

void SphereEqKernel::cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2,
                                    const ConstMatrixRef& K, const ConstMatrixRef& G, Matrix* dX1,
                                    Matrix* dX2, VectorRef d_hyper) const {
  Vector eq_gradient = Vector::Zero(eq_.num_hyperparameters());
  eq_.cross_backward(X1, X2, K, G, dX1, dX2, eq_gradient);
  add_tied(eq_gradient, d_hyper);
}

void SphereEqKernel::diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                                       VectorRef d_hyper) const {
  Vector eq_gradient = Vector::Zero(eq_.num_hyperparameters());
  eq_.diagonal_backward(X, g, dX, eq_gradient);
  add_tied(eq_gradient, d_hyper);
}

void SphereEqKernel::psi_statistics(const ConstMatrixRef&, const ConstMatrixRef&, const ConstMatrixRef&,
                                    PsiStatistics&) const {
  psi_not_supported();
}

void SphereEqKernel::psi_backward(const ConstMatrixRef&, const ConstMatrixRef&, const ConstMatrixRef&,
                                  const PsiStatistics&, double, const ConstMatrixRef&, const ConstMatrixRef&,
                                  Matrix*, Matrix*, Matrix*, VectorRef) const {
  psi_not_supported();
}

Matrix SphereEqKernel::gradient_covariance(const ConstMatrixRef& x) const {
  // The ambient EQ kernel's, in ambient coordinates (exact along tangent directions, like the input
  // adjoints): the sphere's tangent part is taken by whoever projects the Jacobian onto its basis.
  return eq_.gradient_covariance(x);
}

}  // namespace gplvm

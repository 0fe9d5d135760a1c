#include "gplvm/model/sphere_latent_space.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/sphere_geometry.hpp"

namespace gplvm {
namespace {

void require_columns(const ConstMatrixRef& M, Index expected, const char* what) {
  if (M.cols() != expected)
    throw InputError(
        std::string(kSphereSpace) + " latent space: " + what + " has the wrong number of columns",
        {"", "model.latent_dim", std::to_string(M.cols())});
}

[[noreturn]] void no_posterior() {
  throw InputError(
      "the sphere latent space has no posterior family (Bayesian latents: bayesian_sas, bayesian_gplvm); "
      "use a model with point latents (sas, exact, sparse_gplvm) or another model.latent_space",
      {"", "model.latent_space", kSphereSpace});
}

}  // namespace

SphereLatentSpace::SphereLatentSpace(Index intrinsic_dim)
    : dim_(checked_latent_dim(intrinsic_dim)), manifold_(intrinsic_dim + 1) {}

void SphereLatentSpace::from_origin_tangent(const ConstMatrixRef& V, Matrix& X) const {
  require_columns(V, dim_, "tangent vectors at the origin");
  X.resize(V.rows(), dim_ + 1);
  sphere::exp_at_origin_rows(V, X);
}

void SphereLatentSpace::from_origin_tangent_backward(const ConstMatrixRef& V, const ConstMatrixRef& dX,
                                                     MatrixRef dV) const {
  sphere::exp_at_origin_backward_rows(V, dX, dV);
}

void SphereLatentSpace::from_start_components(const ConstMatrixRef& P, Matrix& X) const {
  require_columns(P, dim_ + 1, "principal components of the start");
  X.resize(P.rows(), dim_ + 1);
  for (Index n = 0; n < P.rows(); ++n) {
    const double length = P.row(n).norm();
    if (length > 0.0 && std::isfinite(length)) {
      X.row(n) = P.row(n) / length;
    } else {
      X.row(n).setZero();
      X(n, 0) = 1.0;
    }
  }
}

void SphereLatentSpace::sample_posterior(const ConstMatrixRef&, const ConstMatrixRef&, const ConstMatrixRef&,
                                         Matrix&) const {
  no_posterior();
}

void SphereLatentSpace::sample_posterior_backward(const ConstMatrixRef&, const ConstMatrixRef&,
                                                  const ConstMatrixRef&, const ConstMatrixRef&, MatrixRef,
                                                  MatrixRef) const {
  no_posterior();
}

double SphereLatentSpace::kl_to_prior(const ConstMatrixRef&, const ConstMatrixRef&,
                                      const ConstMatrixRef&) const {
  no_posterior();
}

void SphereLatentSpace::kl_to_prior_backward(const ConstMatrixRef&, const ConstMatrixRef&,
                                             const ConstMatrixRef&, double, MatrixRef, MatrixRef,
                                             Matrix*) const {
  no_posterior();
}

}  // namespace gplvm

#include "gplvm/model/euclidean_latent_space.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/model/gaussian_kl.hpp"

namespace gplvm {

EuclideanLatentSpace::EuclideanLatentSpace(Index dim) : manifold_(checked_latent_dim(dim)) {}

void EuclideanLatentSpace::from_origin_tangent(const ConstMatrixRef& V, Matrix& X) const {
  X = V;
}

void EuclideanLatentSpace::from_origin_tangent_backward(const ConstMatrixRef&, const ConstMatrixRef& dX,
                                                        MatrixRef dV) const {
  dV += dX;
}

void EuclideanLatentSpace::sample_posterior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                            const ConstMatrixRef& eps, Matrix& X) const {
  X = reparameterise(location, variance, eps);
}

void EuclideanLatentSpace::sample_posterior_backward(const ConstMatrixRef&, const ConstMatrixRef& variance,
                                                     const ConstMatrixRef& eps, const ConstMatrixRef& dX,
                                                     MatrixRef d_location, MatrixRef d_variance) const {
  reparameterise_backward(dX, variance, eps, d_location, d_variance);
}

double EuclideanLatentSpace::kl_to_prior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                         const ConstMatrixRef&) const {
  return gaussian_kl(location, variance);
}

void EuclideanLatentSpace::kl_to_prior_backward(const ConstMatrixRef& location,
                                                const ConstMatrixRef& variance, const ConstMatrixRef&,
                                                double scale, MatrixRef d_location, MatrixRef d_variance,
                                                Matrix*) const {
  gaussian_kl_backward(location, variance, scale, d_location, d_variance);
}

}  // namespace gplvm

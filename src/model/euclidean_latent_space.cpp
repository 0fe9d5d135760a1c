#include "gplvm/model/euclidean_latent_space.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/model/gaussian_kl.hpp"

namespace gplvm {

EuclideanLatentSpace::EuclideanLatentSpace(Index dim) : dim_(dim) {
  require(dim >= 1, "latent dimension must be at least 1", {"", "model.latent_dim", std::to_string(dim)});
}

void EuclideanLatentSpace::from_origin_tangent(const ConstMatrixRef& V, Matrix& X) const {
  X = V;
}

void EuclideanLatentSpace::from_origin_tangent_backward(const ConstMatrixRef&, const ConstMatrixRef& dX,
                                                        MatrixRef dV) const {
  dV += dX;
}

void EuclideanLatentSpace::riemannian_gradient(const ConstMatrixRef&, MatrixRef) const {}

Index EuclideanLatentSpace::first_row_outside(const ConstMatrixRef& X, double /*tolerance*/) const {
  if (X.cols() != ambient_dim()) return X.rows() > 0 ? 0 : -1;
  for (Index i = 0; i < X.rows(); ++i)
    if (!X.row(i).allFinite()) return i;
  return -1;
}

Matrix EuclideanLatentSpace::distances(const ConstMatrixRef& A, const ConstMatrixRef& B) const {
  Matrix D(A.rows(), B.rows());
  for (Index j = 0; j < B.rows(); ++j)
    for (Index i = 0; i < A.rows(); ++i) D(i, j) = (A.row(i) - B.row(j)).norm();
  return D;
}

void EuclideanLatentSpace::retract(MatrixRef X, const ConstMatrixRef& step) const {
  X += step;
}

Vector EuclideanLatentSpace::tangent_squared_norms(const ConstMatrixRef&, const ConstMatrixRef& V) const {
  return V.rowwise().squaredNorm();
}

// Tangent spaces of R^Q are all R^Q: transport is the identity.
void EuclideanLatentSpace::transport(const ConstMatrixRef&, const ConstMatrixRef&, MatrixRef) const {}

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

#include "gplvm/geometry/latent_chart.hpp"

#include <Eigen/Cholesky>

#include "gplvm/core/error.hpp"

namespace gplvm {

LatentChart::LatentChart(Index dim) : dim_(dim) {}

LatentChart::LatentChart(const LatentSpace& space) : dim_(space.intrinsic_dim()), space_(&space) {
  const Matrix zero = Matrix::Zero(1, dim_);
  Matrix origin;
  space.from_origin_tangent(zero, origin);
  origin_ = origin.row(0).transpose();
  // The map's differential at 0, row by row through its adjoint: row a of B is dX_a / dV.
  basis_.resize(space.ambient_dim(), dim_);
  for (Index a = 0; a < space.ambient_dim(); ++a) {
    Matrix unit = Matrix::Zero(1, space.ambient_dim());
    unit(0, a) = 1.0;
    Matrix row = Matrix::Zero(1, dim_);
    space.from_origin_tangent_backward(zero, unit, row);
    basis_.row(a) = row;
  }
}

Matrix LatentChart::points(const ConstMatrixRef& V) const {
  if (!space_) return V;
  Matrix X;
  space_->from_origin_tangent(V, X);
  return X;
}

Matrix LatentChart::backward(const ConstMatrixRef& V, const ConstMatrixRef& dX) const {
  if (!space_) return dX;
  Matrix dV = Matrix::Zero(V.rows(), dim_);
  space_->from_origin_tangent_backward(V, dX, dV);
  return dV;
}

Matrix LatentChart::jacobian(const Vector& v) const {
  if (!space_) return Matrix::Identity(dim_, dim_);
  Matrix J(space_->ambient_dim(), dim_);
  for (Index a = 0; a < space_->ambient_dim(); ++a) {
    Matrix unit = Matrix::Zero(1, space_->ambient_dim());
    unit(0, a) = 1.0;
    J.row(a) = backward(v.transpose(), unit);
  }
  return J;
}

Matrix LatentChart::coordinates(const ConstMatrixRef& X) const {
  if (!space_) return X;
  require(X.cols() == space_->ambient_dim(),
          "points have the wrong number of coordinates for the latent space",
          {"", "latents", std::to_string(X.cols())});
  const Eigen::LDLT<Matrix> gram(basis_.transpose() * basis_);
  Matrix V(X.rows(), dim_);
  for (Index i = 0; i < X.rows(); ++i) {
    const Vector tangent = space_->manifold().log(origin_, X.row(i).transpose());
    V.row(i) = gram.solve(basis_.transpose() * tangent).transpose();
  }
  return V;
}

}  // namespace gplvm

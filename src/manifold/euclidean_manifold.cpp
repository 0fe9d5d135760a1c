#include "gplvm/manifold/euclidean_manifold.hpp"

#include <cstdio>

#include "gplvm/core/error.hpp"

namespace gplvm {

EuclideanManifold::EuclideanManifold(Index dim) : dim_(dim) {
  require(dim >= 1, "R^n needs n >= 1 coordinates", {"", kEuclideanSpace, std::to_string(dim)});
}

std::string EuclideanManifold::off_manifold_reason(const ConstVectorRef& q, double /*tolerance*/) const {
  if (q.allFinite()) return {};
  return "a coordinate is not finite";
}

Index EuclideanManifold::first_row_outside(const ConstMatrixRef& X, double /*tolerance*/) const {
  if (X.cols() != ambient_dim()) return X.rows() > 0 ? 0 : -1;
  for (Index i = 0; i < X.rows(); ++i)
    if (!X.row(i).allFinite()) return i;
  return -1;
}

Matrix EuclideanManifold::distances(const ConstMatrixRef& A, const ConstMatrixRef& B) const {
  Matrix D(A.rows(), B.rows());
  for (Index j = 0; j < B.rows(); ++j)
    for (Index i = 0; i < A.rows(); ++i) D(i, j) = (A.row(i) - B.row(j)).norm();
  return D;
}

void EuclideanManifold::riemannian_gradient(const ConstMatrixRef&, MatrixRef) const {}

void EuclideanManifold::retract(MatrixRef X, const ConstMatrixRef& step) const {
  X += step;
}

Vector EuclideanManifold::tangent_squared_norms(const ConstMatrixRef&, const ConstMatrixRef& V) const {
  return V.rowwise().squaredNorm();
}

void EuclideanManifold::transport(const ConstMatrixRef&, const ConstMatrixRef&, MatrixRef) const {}

Vector EuclideanManifold::initial_mean(const DataRef& points) const {
  return points.colwise().mean().transpose();
}

FrechetMean EuclideanManifold::frechet_mean(const DataRef& points, const FrechetMeanOptions&) const {
  require(points.rows() > 0, "the Fréchet mean needs at least one point", {"", "points", "0"});
  return {initial_mean(points), 0, 0.0};
}

}  // namespace gplvm

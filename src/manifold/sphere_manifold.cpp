#include "gplvm/manifold/sphere_manifold.hpp"

#include <cmath>
#include <cstdio>

#include "gplvm/core/error.hpp"

namespace gplvm {

SphereManifold::SphereManifold(Index ambient_dim) : ambient_(ambient_dim) {
  require(ambient_dim >= 2, "a sphere needs at least 2 ambient coordinates",
          {"", kSphereSpace, std::to_string(ambient_dim)});
}

std::unique_ptr<Manifold> SphereManifold::for_width(Index data_dim, const std::string& key) {
  require(data_dim >= 2, "a sphere needs points of at least 2 coordinates",
          {"", key, std::to_string(data_dim) + " numbers per point"});
  return std::make_unique<SphereManifold>(data_dim);
}

std::string SphereManifold::off_manifold_reason(const ConstVectorRef& q, double tolerance) const {
  const double n = q.norm();
  if (std::abs(n - 1.0) <= tolerance) return {};
  char text[128];
  std::snprintf(text, sizeof text, "norm %.17g differs from 1 by %.3g > tolerance %.3g", n, std::abs(n - 1.0),
                tolerance);
  return text;
}

Vector SphereManifold::exp(const ConstVectorRef& p, const ConstVectorRef& v) const {
  return sphere::exp_map(p, v);
}

Vector SphereManifold::log(const ConstVectorRef& p, const ConstVectorRef& q) const {
  return sphere::log_map(p, q);
}

double SphereManifold::distance(const ConstVectorRef& p, const ConstVectorRef& q) const {
  return sphere::angle(p, q);
}

Vector SphereManifold::project(const ConstVectorRef& y) const {
  const double length = y.norm();
  if (!(length > 0.0) || !std::isfinite(length))
    throw NumericalError("a zero or non-finite vector has no nearest point on the sphere",
                         {"", "|y|", std::to_string(length)});
  return y / length;
}

Index SphereManifold::first_row_outside(const ConstMatrixRef& X, double tolerance) const {
  if (X.cols() != ambient_dim()) return X.rows() > 0 ? 0 : -1;
  return sphere::first_row_off_sphere(X, tolerance);
}

Matrix SphereManifold::distances(const ConstMatrixRef& A, const ConstMatrixRef& B) const {
  return sphere::pairwise_angles(A, B);
}

Vector SphereManifold::parallel_transport(const ConstVectorRef& from, const ConstVectorRef& to,
                                          const ConstVectorRef& v) const {
  return sphere::parallel_transport(from, to, v);
}

Vector SphereManifold::riemannian_gradient_at(const ConstVectorRef& p, const ConstVectorRef& g) const {
  return g - g.dot(p) * p;
}

void SphereManifold::riemannian_gradient(const ConstMatrixRef& X, MatrixRef G) const {
  sphere::project_tangent_rows(X, G);
}

void SphereManifold::retract(MatrixRef X, const ConstMatrixRef& step) const {
  sphere::retract_rows(X, step);
}

// The round metric is the ambient one on tangent vectors.
Vector SphereManifold::tangent_squared_norms(const ConstMatrixRef&, const ConstMatrixRef& V) const {
  return sphere::squared_norm_rows(V);
}

void SphereManifold::transport(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) const {
  sphere::parallel_transport_rows(from, to, V);
}

Matrix SphereManifold::tangent_basis(const ConstVectorRef& p) const {
  return sphere::orthogonal_complement(p);
}

Vector SphereManifold::initial_mean(const DataRef& points) const {
  const Vector sum = points.colwise().sum().transpose();
  if (sum.norm() <= 1e-12 * static_cast<double>(points.rows()))
    throw NumericalError(
        "the points' Euclidean mean is at the sphere's centre: no Fréchet mean to start from",
        {"", "frechet_mean", "|sum| = " + std::to_string(sum.norm())});
  return sum / sum.norm();
}

}  // namespace gplvm

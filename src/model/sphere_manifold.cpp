#include "gplvm/model/sphere_manifold.hpp"

#include <Eigen/QR>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace sphere {

double sinc(double t) {
  // Taylor series below 1e-4, where 1 - t^2/6 + t^4/120 is exact to rounding.
  if (std::abs(t) < 1e-4) return 1.0 - t * t / 6.0 + t * t * t * t / 120.0;
  return std::sin(t) / t;
}

double angle(const ConstVectorRef& p, const ConstVectorRef& q) {
  // arccos <p, q> loses half the digits near 0 and pi; the chord and the sum do not.
  return 2.0 * std::atan2((p - q).norm(), (p + q).norm());
}

Vector exp_map(const ConstVectorRef& p, const ConstVectorRef& v) {
  const double t = v.norm();
  Vector q = std::cos(t) * p + sinc(t) * v;
  return q / q.norm();  // removes rounding drift off the sphere; no change in exact arithmetic
}

Matrix orthogonal_complement(const ConstMatrixRef& normals) {
  const Index m = normals.rows(), r = normals.cols();
  const Eigen::HouseholderQR<Matrix> qr(normals);
  const Matrix q = qr.householderQ() * Matrix::Identity(m, m);
  return q.rightCols(m - r);
}

Vector log_map(const ConstVectorRef& p, const ConstVectorRef& q) {
  const double c = p.dot(q);
  Vector w = q - c * p;
  const double s = w.norm();
  const double t = std::atan2(s, c);
  if (s > 0) return (t / s) * w;
  if (c > 0) return Vector::Zero(p.size());
  // q = -p: every direction is a minimising geodesic; a deterministic one of norm pi.
  return std::numbers::pi * orthogonal_complement(p).col(0);
}

}  // namespace sphere

SphereManifold::SphereManifold(Index ambient_dim) : ambient_(ambient_dim) {
  require(ambient_dim >= 2, "a sphere needs at least 2 ambient coordinates",
          {"", "sphere", std::to_string(ambient_dim)});
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

#include "gplvm/model/spd_log_euclidean.hpp"

#include <Eigen/Eigenvalues>
#include <cstdio>

#include "gplvm/core/error.hpp"
#include "gplvm/model/spd_matrix_functions.hpp"

namespace gplvm {

std::string spd_off_manifold_reason(const ConstVectorRef& q, Index n, double tolerance) {
  const Matrix a = spd::as_matrix(q, n);
  const double scale = std::max(1.0, a.cwiseAbs().maxCoeff());
  const double asymmetry = (a - a.transpose()).cwiseAbs().maxCoeff();
  char text[192];
  if (asymmetry > tolerance * scale) {
    std::snprintf(text, sizeof text, "not symmetric: max |A - A^T| = %.3g > tolerance %.3g x %.3g", asymmetry,
                  tolerance, scale);
    return text;
  }
  const Vector values = Eigen::SelfAdjointEigenSolver<Matrix>(spd::symmetric_part(a)).eigenvalues();
  const double largest = std::max(std::abs(values.maxCoeff()), std::abs(values.minCoeff()));
  if (values.minCoeff() > tolerance * largest && values.minCoeff() > 0) return {};
  std::snprintf(text, sizeof text,
                "not positive definite: smallest eigenvalue %.6g <= tolerance %.3g x largest %.6g",
                values.minCoeff(), tolerance, largest);
  return text;
}

SpdLogEuclidean::SpdLogEuclidean(Index order) : n_(order) {
  require(order >= 1, "SPD matrices need order n >= 1", {"", "spd", std::to_string(order)});
}

std::string SpdLogEuclidean::off_manifold_reason(const ConstVectorRef& q, double tolerance) const {
  return spd_off_manifold_reason(q, n_, tolerance);
}

Vector SpdLogEuclidean::canonical(const ConstVectorRef& q) const {
  return spd::as_flat(spd::symmetric_part(spd::as_matrix(q, n_)));
}

Vector SpdLogEuclidean::exp(const ConstVectorRef& p, const ConstVectorRef& v) const {
  const Matrix log_p = spd::log(spd::symmetric_part(spd::as_matrix(p, n_)));
  return spd::as_flat(spd::exp(log_p + spd::symmetric_part(spd::as_matrix(v, n_))));
}

Vector SpdLogEuclidean::log(const ConstVectorRef& p, const ConstVectorRef& q) const {
  return spd::as_flat(spd::log(spd::symmetric_part(spd::as_matrix(q, n_))) -
                      spd::log(spd::symmetric_part(spd::as_matrix(p, n_))));
}

double SpdLogEuclidean::distance(const ConstVectorRef& p, const ConstVectorRef& q) const {
  return log(p, q).norm();
}

Vector SpdLogEuclidean::project(const ConstVectorRef& y) const {
  return spd::as_flat(spd::clip_to_spd(spd::as_matrix(y, n_), kSpdProjectionFloor));
}

Matrix SpdLogEuclidean::tangent_basis(const ConstVectorRef&) const {
  return spd::frobenius_basis(n_);
}

Vector SpdLogEuclidean::initial_mean(const DataRef& points) const {
  Matrix sum = Matrix::Zero(n_, n_);
  for (Index i = 0; i < points.rows(); ++i)
    sum += spd::log(spd::symmetric_part(spd::as_matrix(points.row(i).transpose(), n_)));
  return spd::as_flat(spd::exp(sum / static_cast<double>(points.rows())));
}

FrechetMean SpdLogEuclidean::frechet_mean(const DataRef& points, const FrechetMeanOptions&) const {
  require(points.rows() > 0, "the Fréchet mean needs at least one point", {"", "points", "0"});
  FrechetMean mean{initial_mean(points), 0, 0.0};
  Vector step = Vector::Zero(data_dim());
  for (Index i = 0; i < points.rows(); ++i) step += log(mean.point, points.row(i).transpose());
  mean.gradient_norm = step.norm() / static_cast<double>(points.rows());
  return mean;
}

}  // namespace gplvm

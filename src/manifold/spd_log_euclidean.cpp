#include "gplvm/manifold/spd_log_euclidean.hpp"

#include <Eigen/Eigenvalues>
#include <cstdio>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/spd_matrix_functions.hpp"

namespace gplvm {

std::unique_ptr<Manifold> SpdLogEuclidean::for_width(Index data_dim, const std::string& key) {
  return std::make_unique<SpdLogEuclidean>(spd::matrix_order(data_dim, key));
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

Matrix SpdLogEuclidean::tangent_basis(const ConstVectorRef&) const {
  return spd::frobenius_basis(n_);
}

Vector SpdLogEuclidean::riemannian_gradient_at(const ConstVectorRef& p, const ConstVectorRef& g) const {
  const Matrix log_p = spd::log(spd::symmetric_part(spd::as_matrix(p, n_)));
  return spd::as_flat(spd::exp_derivative(log_p, spd::symmetric_part(spd::as_matrix(g, n_))));
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
  Vector step = Vector::Zero(ambient_dim());
  for (Index i = 0; i < points.rows(); ++i) step += log(mean.point, points.row(i).transpose());
  mean.gradient_norm = step.norm() / static_cast<double>(points.rows());
  return mean;
}

}  // namespace gplvm

#include "gplvm/manifold/spd_affine.hpp"

#include <Eigen/LU>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/spd_log_euclidean.hpp"
#include "gplvm/manifold/spd_matrix_functions.hpp"

namespace gplvm {

std::unique_ptr<Manifold> SpdAffine::for_width(Index data_dim, const std::string& key) {
  return std::make_unique<SpdAffine>(spd::matrix_order(data_dim, key));
}

Vector SpdAffine::exp(const ConstVectorRef& p, const ConstVectorRef& v) const {
  const Matrix base = spd::symmetric_part(spd::as_matrix(p, n_));
  const Matrix root = spd::sqrt(base), inverse_root = spd::inverse_sqrt(base);
  const Matrix inner = spd::symmetric_part(inverse_root * spd::as_matrix(v, n_) * inverse_root);
  return spd::as_flat(spd::symmetric_part(root * spd::exp(inner) * root));
}

Vector SpdAffine::log(const ConstVectorRef& p, const ConstVectorRef& q) const {
  const Matrix base = spd::symmetric_part(spd::as_matrix(p, n_));
  const Matrix root = spd::sqrt(base), inverse_root = spd::inverse_sqrt(base);
  const Matrix whitened = spd::symmetric_part(inverse_root * spd::as_matrix(q, n_) * inverse_root);
  return spd::as_flat(spd::symmetric_part(root * spd::log(whitened) * root));
}

double SpdAffine::distance(const ConstVectorRef& p, const ConstVectorRef& q) const {
  const Matrix inverse_root = spd::inverse_sqrt(spd::symmetric_part(spd::as_matrix(p, n_)));
  return spd::log(spd::symmetric_part(inverse_root * spd::as_matrix(q, n_) * inverse_root)).norm();
}

Matrix SpdAffine::tangent_basis(const ConstVectorRef& p) const {
  const Matrix root = spd::sqrt(spd::symmetric_part(spd::as_matrix(p, n_)));
  const Matrix frobenius = spd::frobenius_basis(n_);
  Matrix basis(frobenius.rows(), frobenius.cols());
  for (Index a = 0; a < frobenius.cols(); ++a)
    basis.col(a) = spd::as_flat(root * spd::as_matrix(frobenius.col(a), n_) * root);
  return basis;
}

Vector SpdAffine::parallel_transport(const ConstVectorRef& from, const ConstVectorRef& to,
                                     const ConstVectorRef& v) const {
  const Matrix base = spd::symmetric_part(spd::as_matrix(from, n_));
  const Matrix root = spd::sqrt(base), inverse_root = spd::inverse_sqrt(base);
  const Matrix whitened = spd::symmetric_part(inverse_root * spd::as_matrix(to, n_) * inverse_root);
  const Matrix e = root * spd::sqrt(whitened) * inverse_root;
  return spd::as_flat(spd::symmetric_part(e * spd::as_matrix(v, n_) * e.transpose()));
}

Vector SpdAffine::riemannian_gradient_at(const ConstVectorRef& p, const ConstVectorRef& g) const {
  const Matrix base = spd::symmetric_part(spd::as_matrix(p, n_));
  return spd::as_flat(spd::symmetric_part(base * spd::symmetric_part(spd::as_matrix(g, n_)) * base));
}

Vector SpdAffine::lower_index(const ConstVectorRef& p, const ConstVectorRef& v) const {
  const Matrix inverse = spd::symmetric_part(spd::as_matrix(p, n_)).inverse();
  return spd::as_flat(inverse * spd::as_matrix(v, n_) * inverse);
}

Vector SpdAffine::initial_mean(const DataRef& points) const {
  return SpdLogEuclidean(n_).frechet_mean(points).point;
}

}  // namespace gplvm

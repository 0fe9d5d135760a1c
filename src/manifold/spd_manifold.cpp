#include "gplvm/manifold/spd_manifold.hpp"

#include <Eigen/Eigenvalues>
#include <cstdio>

#include "gplvm/core/error.hpp"
#include "gplvm/manifold/spd_matrix_functions.hpp"

namespace gplvm {

SpdManifold::SpdManifold(Index order) : n_(order) {
  require(order >= 1, "SPD matrices need order n >= 1", {"", "spd", std::to_string(order)});
}

std::string SpdManifold::off_manifold_reason(const ConstVectorRef& q, double tolerance) const {
  const Matrix a = spd::as_matrix(q, n_);
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

Vector SpdManifold::canonical(const ConstVectorRef& q) const {
  return spd::as_flat(spd::symmetric_part(spd::as_matrix(q, n_)));
}

Vector SpdManifold::project(const ConstVectorRef& y) const {
  return spd::as_flat(spd::clip_to_spd(spd::as_matrix(y, n_), kSpdProjectionFloor));
}

}  // namespace gplvm

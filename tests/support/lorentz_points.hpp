#pragma once
// Test helpers on the hyperboloid: random points and tangent vectors, and the finite-difference
// derivative of a function of points along exponential-map curves (the only way a point on the
// sheet can move, so the only derivatives an ambient adjoint must get right).
#include <cmath>
#include <functional>

#include "gplvm/core/types.hpp"
#include "gplvm/manifold/lorentz_geometry.hpp"
#include "support/test_support.hpp"

namespace gplvm::testing {

// n points of H^Q: lifts of N(0, scale^2 I) spatial coordinates.
inline Matrix random_lorentz_points(Index n, Index Q, std::uint64_t seed, double scale = 1.0) {
  const Matrix spatial = scale * random_normal(n, Q, seed);
  Matrix X(n, Q + 1);
  for (Index i = 0; i < n; ++i) X.row(i) = lorentz::lift(spatial.row(i).transpose()).transpose();
  return X;
}

// A random tangent vector at each row of X (a projected N(0, I) ambient vector).
inline Matrix random_tangents(const Matrix& X, std::uint64_t seed) {
  const Matrix raw = random_normal(X.rows(), X.cols(), seed);
  Matrix T(X.rows(), X.cols());
  for (Index i = 0; i < X.rows(); ++i)
    T.row(i) = lorentz::project_tangent(X.row(i).transpose(), raw.row(i).transpose()).transpose();
  return T;
}

// Row i moved to Exp_{x_i}(t xi_i).
inline Matrix move_along(const Matrix& X, const Matrix& Xi, double t) {
  Matrix out(X.rows(), X.cols());
  for (Index i = 0; i < X.rows(); ++i)
    out.row(i) = lorentz::exp_map(X.row(i).transpose(), t * Xi.row(i).transpose()).transpose();
  return out;
}

// d/dt f(Exp_X(t Xi)) at t = 0, by central differences.
inline double derivative_along(const std::function<double(const Matrix&)>& f, const Matrix& X,
                               const Matrix& Xi, double h = 1e-5) {
  return (f(move_along(X, Xi, h)) - f(move_along(X, Xi, -h))) / (2.0 * h);
}

// |a - b| / max(|b|, floor).
inline double relative_error(double a, double b, double floor = 1e-12) {
  return std::abs(a - b) / std::max(std::abs(b), floor);
}

}  // namespace gplvm::testing

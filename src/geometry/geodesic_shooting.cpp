#include "gplvm/geometry/geodesic_shooting.hpp"

#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {

Vector geodesic_acceleration(const ExpectedMetric& metric, const Vector& x, const Vector& velocity) {
  const std::vector<Matrix> gamma = metric.christoffel_symbols(x.transpose());
  Vector a(x.size());
  for (Index i = 0; i < x.size(); ++i) a[i] = -velocity.dot(gamma[static_cast<std::size_t>(i)] * velocity);
  return a;
}

Matrix shoot_geodesic(const ExpectedMetric& metric, const Vector& start, const Vector& velocity,
                      Index steps) {
  require(steps >= 1, "shooting needs at least one step", {"", "steps", std::to_string(steps)});
  require(start.size() == metric.dim() && velocity.size() == metric.dim(),
          "a shot's start and velocity have the wrong dimension",
          {"", "latent_dim", std::to_string(start.size())});
  const double h = 1.0 / static_cast<double>(steps);
  Matrix path(steps + 1, start.size());
  Vector x = start, v = velocity;
  path.row(0) = x.transpose();
  for (Index s = 1; s <= steps; ++s) {
    // (x, v)' = (v, a(x, v)), one RK4 step.
    const Vector k1x = v, k1v = geodesic_acceleration(metric, x, v);
    const Vector k2x = v + 0.5 * h * k1v, k2v = geodesic_acceleration(metric, x + 0.5 * h * k1x, k2x);
    const Vector k3x = v + 0.5 * h * k2v, k3v = geodesic_acceleration(metric, x + 0.5 * h * k2x, k3x);
    const Vector k4x = v + h * k3v, k4v = geodesic_acceleration(metric, x + h * k3x, k4x);
    x += (h / 6.0) * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
    v += (h / 6.0) * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    path.row(s) = x.transpose();
  }
  return path;
}

}  // namespace gplvm

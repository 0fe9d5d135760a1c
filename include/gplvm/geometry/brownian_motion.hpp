#pragma once
// Brownian motion on the latent space under the expected metric G (docs/math/geometry.md,
// "Brownian motion"), by Euler-Maruyama steps of dt = time / steps:
//   riemannian (the default): x += -1/2 g^ij Gamma^k_ij dt + sqrt(dt) G^{-1/2} xi, the Riemannian
//     Brownian motion with its drift, generator Laplace-Beltrami / 2;
//   random_walk: x += sqrt(dt) G^{-1/2} xi, the same without the drift (an isotropic step in data
//     space mapped back through the pseudo-inverse of J has covariance G^{-1});
//   thesis_algorithm3: x += sqrt(dt) G^{1/2} xi, the metric itself and not its inverse, as the
//     source thesis's Algorithm 3 was implemented. It is not a Brownian motion of G: it moves fastest
//     where G is large, off the data. Kept, named, to reproduce that work.
// xi ~ N(0, I) is drawn from (seed, RngPurpose::brownian_motion, path, step, coordinate): a path is
// the same whichever rank draws it. G^{-1/2} xi is L^{-T} xi with G = L L^T.
// The zeroth-order parametrix density of the motion after time t from mu, with respect to Lebesgue
// measure in the latent coordinates:
//   log p(x) = -Q/2 log(2 pi t) + 1/2 log det G(x) - d(x, mu)^2 / (2 t),
// d the geodesic distance; for a constant metric it is exactly the Gaussian N(mu, t G^{-1}).
#include <cstdint>
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/geometry/expected_metric.hpp"
#include "gplvm/geometry/latent_chart.hpp"

namespace gplvm {

enum class BrownianMethod { riemannian, random_walk, thesis_algorithm3 };
BrownianMethod parse_brownian_method(const std::string& name, const std::string& key = "--method");
std::string to_string(BrownianMethod method);

struct BrownianOptions {
  BrownianMethod method = BrownianMethod::riemannian;
  double time = 1.0;  // t: the total duration (the motion's variance per unit of metric)
  Index steps = 100;
  std::uint64_t seed = 0;
};

// One path from `start` ((steps + 1) x Q), the path'th of the seed's. With a chart (a curved latent
// space's exponential chart) the path is in its coordinates, under the metric A^T E[G] A pulled back
// by the chart's Jacobian A; the riemannian method, whose drift needs the pulled-back metric's
// Christoffel symbols, is then refused (InputError naming --method).
Matrix brownian_path(const ExpectedMetric& metric, const Vector& start, const BrownianOptions& options,
                     std::uint64_t path, const LatentChart* chart = nullptr);

// E[G] at chart coordinates v: A^T E[G](x(v)) A (E[G] itself without a chart).
Matrix chart_metric(const ExpectedMetric& metric, const Vector& v, const LatentChart* chart);

// One step's mean displacement per unit time (the drift; zero unless riemannian) and its covariance
// per unit time (G^{-1}, or G for thesis_algorithm3) at x.
struct BrownianStep {
  Vector drift;
  Matrix covariance;
};
BrownianStep brownian_step(const ExpectedMetric& metric, const Vector& x, BrownianMethod method,
                           const LatentChart* chart = nullptr);

// The parametrix log-density above, given the geodesic distance and G(x).
double parametrix_log_density(const Matrix& metric_at_x, double geodesic_distance, double time);

}  // namespace gplvm

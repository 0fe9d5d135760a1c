#include "gplvm/geometry/brownian_motion.hpp"

#include <Eigen/Cholesky>

#include <cmath>
#include <numbers>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

Eigen::LLT<Matrix> factorised(const Matrix& metric) {
  Eigen::LLT<Matrix> llt(metric);
  if (llt.info() != Eigen::Success)
    throw NumericalError("the expected metric is not positive definite at a point of the path");
  return llt;
}

}  // namespace

BrownianMethod parse_brownian_method(const std::string& name, const std::string& key) {
  if (name == "riemannian") return BrownianMethod::riemannian;
  if (name == "random_walk") return BrownianMethod::random_walk;
  if (name == "thesis_algorithm3") return BrownianMethod::thesis_algorithm3;
  throw InputError("unknown Brownian motion method (riemannian, random_walk, thesis_algorithm3)",
                   {"", key, name});
}

std::string to_string(BrownianMethod method) {
  switch (method) {
    case BrownianMethod::riemannian:
      return "riemannian";
    case BrownianMethod::random_walk:
      return "random_walk";
    case BrownianMethod::thesis_algorithm3:
      return "thesis_algorithm3";
  }
  return "unknown";
}

Matrix chart_metric(const ExpectedMetric& metric, const Vector& v, const LatentChart* chart) {
  if (!chart || chart->is_identity()) return metric.metric(v.transpose());
  const Matrix A = chart->jacobian(v);
  return A.transpose() * metric.metric(chart->points(v.transpose())) * A;
}

BrownianStep brownian_step(const ExpectedMetric& metric, const Vector& x, BrownianMethod method,
                           const LatentChart* chart) {
  const Index q = x.size();
  BrownianStep step;
  step.drift = Vector::Zero(q);
  if (method == BrownianMethod::thesis_algorithm3) {
    step.covariance = chart_metric(metric, x, chart);
    return step;
  }
  if (method == BrownianMethod::random_walk) {
    step.covariance = factorised(chart_metric(metric, x, chart)).solve(Matrix::Identity(q, q));
    return step;
  }
  require(!chart || chart->is_identity(),
          "the riemannian method's drift needs the Christoffel symbols of the metric in the curved latent "
          "space's chart, which are not available; use --method random_walk (its covariance only)",
          {"", "--method", to_string(method)});
  const MetricWithDerivatives g = metric.with_derivatives(x.transpose());
  step.covariance = factorised(g.metric).solve(Matrix::Identity(q, q));
  const std::vector<Matrix> gamma = christoffel_symbols(g);
  // -1/2 g^ij Gamma^k_ij: the trace of each Gamma^k against the inverse metric.
  for (Index k = 0; k < q; ++k)
    step.drift[k] = -0.5 * step.covariance.cwiseProduct(gamma[static_cast<std::size_t>(k)]).sum();
  return step;
}

Matrix brownian_path(const ExpectedMetric& metric, const Vector& start, const BrownianOptions& options,
                     std::uint64_t path, const LatentChart* chart) {
  require(options.steps >= 1, "Brownian motion needs at least one step",
          {"", "--steps", std::to_string(options.steps)});
  require(options.time > 0.0 && std::isfinite(options.time), "Brownian motion's time must be positive",
          {"", "--time", std::to_string(options.time)});
  const Index q = start.size();
  const double dt = options.time / static_cast<double>(options.steps);
  const CounterRng rng(options.seed);
  Matrix out(options.steps + 1, q);
  Vector x = start;
  out.row(0) = x.transpose();
  Vector xi(q);
  for (Index s = 0; s < options.steps; ++s) {
    const BrownianStep step = brownian_step(metric, x, options.method, chart);
    for (Index c = 0; c < q; ++c)
      xi[c] = rng.normal(RngPurpose::brownian_motion, path, static_cast<std::uint64_t>(s),
                         static_cast<std::uint64_t>(c));
    // A draw with covariance C: its lower Cholesky factor times xi.
    const Vector noise = factorised(step.covariance).matrixL() * xi;
    x += dt * step.drift + std::sqrt(dt) * noise;
    out.row(s + 1) = x.transpose();
  }
  return out;
}

double parametrix_log_density(const Matrix& metric_at_x, double geodesic_distance, double time) {
  const auto q = static_cast<double>(metric_at_x.rows());
  return -0.5 * q * std::log(2.0 * std::numbers::pi * time) + log_volume_element(metric_at_x) -
         geodesic_distance * geodesic_distance / (2.0 * time);
}

}  // namespace gplvm

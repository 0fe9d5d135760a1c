#include "gplvm/probdr/graph_gp_fit.hpp"

#include <cmath>
#include <utility>

namespace gplvm {
namespace {

constexpr double kLogKappaBound = 7.0;
constexpr double kLogVarianceRange = 28.0;

// This rank's slice of (lower, upper): all three on rank 0, none elsewhere.
std::pair<Vector, Vector> log_parameter_bounds(const GraphGpMarginal& marginal, Index local_size) {
  const double log_m = std::log(marginal.mean_square());
  Vector lower{{-kLogKappaBound, log_m - kLogVarianceRange, log_m - kLogVarianceRange}};
  Vector upper{{kLogKappaBound, log_m + kLogVarianceRange, log_m + kLogVarianceRange}};
  return {lower.head(local_size), upper.head(local_size)};
}

}  // namespace

GraphGpHyperparameters default_graph_gp_start(const GraphGpMarginal& marginal) {
  const double half = 0.5 * marginal.mean_square();
  const double mean_s = spectral_values(marginal.kernel(), 1.0, marginal.eigenvalues()).mean();
  return {1.0, half / mean_s, half};
}

GraphGpFit fit_graph_gp(const GraphGpMarginal& marginal, const Communicator& comm,
                        const GraphGpFitOptions& options) {
  GraphGpFit fit;
  fit.start = options.start.value_or(default_graph_gp_start(marginal));
  require_valid(fit.start);
  const Index local_size = comm.rank() == 0 ? 3 : 0;
  TaoOptions tao;
  tao.gatol = options.gradient_tolerance;
  tao.grtol = 0.0;
  tao.max_iterations = options.max_iterations;
  TaoMinimizer minimizer(comm, local_size, tao);
  const auto [lower, upper] = log_parameter_bounds(marginal, local_size);
  minimizer.set_bounds(lower, upper);
  // Scaled by 1 / (n d) so that the gradient tolerance means the same for any size of Y.
  const double scale = 1.0 / static_cast<double>(marginal.vertices() * marginal.columns());
  const auto objective = [&](const ConstVectorRef& local_x, VectorRef local_gradient) {
    Vector x = local_size == 3 ? Vector(local_x) : Vector::Zero(3);
    comm.broadcast(x.data(), 3);
    const GraphGpEvaluation e = marginal.evaluate(from_log_parameters(x));
    local_gradient = -scale * e.d_log_parameters.head(local_size);
    return -scale * e.log_marginal;
  };
  const TaoResult result = minimizer.minimize(to_log_parameters(fit.start).head(local_size), objective);
  Vector x = local_size == 3 ? result.solution : Vector::Zero(3);
  comm.broadcast(x.data(), 3);
  fit.hyper = from_log_parameters(x);
  fit.at_optimum = marginal.evaluate(fit.hyper);
  fit.reason = result.reason;
  fit.converged = result.converged;
  fit.iterations = result.iterations;
  return fit;
}

}  // namespace gplvm

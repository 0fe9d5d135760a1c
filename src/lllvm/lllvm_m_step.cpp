#include "gplvm/lllvm/lllvm_m_step.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/lllvm/linear_statistics.hpp"

namespace gplvm {

double optimal_gamma(const LllvmProblem& problem, const LllvmState& state,
                     const BoundStatistics& statistics) {
  const double linear = state.mean_c.cwiseProduct(expected_h(problem, state.mean_x)).sum();
  const double slope = 0.25 * statistics.quadratic_form - linear + problem.data_laplacian_trace;
  const auto n = static_cast<double>(problem.nodes());
  const double log_weight = 0.5 * static_cast<double>(problem.data_dims()) * (n - 1.0);
  if (!(slope > 0.0))
    throw NumericalError("the gamma update's denominator is not positive (" + std::to_string(slope) +
                             "): the expected residual of the local linear fits must be positive",
                         {"", "lllvm.gamma"});
  return log_weight / slope;
}

double optimal_alpha(const LllvmProblem& problem, const LllvmState& state) {
  const double target = state.cov_x.trace() + state.mean_x.squaredNorm();
  const auto dx = static_cast<double>(problem.latent_dims);
  const auto n = static_cast<double>(problem.nodes());
  const Vector twice_omega = 2.0 * problem.spectrum.eigenvalues;
  // excess(alpha) = d_x sum_i 1 / (alpha + 2 omega_i) - target falls in alpha. It lies between
  // d_x / alpha - target (the omega_1 = 0 term alone) and d_x n / alpha - target, so it is positive
  // at d_x / (2 target) and negative at 2 d_x n / target.
  const auto excess = [&](double alpha) {
    return dx * (alpha + twice_omega.array()).inverse().sum() - target;
  };
  double low = std::log(0.5 * dx / target), high = std::log(2.0 * dx * n / target);
  while (high - low > 1e-15 * std::max(1.0, std::abs(high))) {
    const double middle = 0.5 * (low + high);
    if (middle == low || middle == high) break;
    (excess(std::exp(middle)) > 0.0 ? low : high) = middle;
  }
  return std::exp(0.5 * (low + high));
}

}  // namespace gplvm

#include "gplvm/lllvm/lllvm_bound.hpp"

#include <cmath>
#include <numbers>

#include "gplvm/linalg/cholesky.hpp"
#include "gplvm/lllvm/dimension_major.hpp"
#include "gplvm/lllvm/linear_statistics.hpp"

namespace gplvm {
namespace {

// Exact: a covariance that needed jitter would give the log-determinant of another matrix.
double covariance_log_determinant(const Matrix& covariance, const char* what) {
  return CholeskyFactor::factorize(covariance, what, {.max_jitter_tries = 0}).log_determinant();
}

// log |eps 1 1^T + 2 gamma L| = log(n eps) + (n - 1) log(2 gamma) + sum_{i >= 2} log omega_i: the
// constant vector carries n eps, the others 2 gamma omega_i.
double log_det_graph_precision(const LllvmProblem& problem, double gamma) {
  const auto n = static_cast<double>(problem.nodes());
  return std::log(n * problem.epsilon) + (n - 1.0) * std::log(2.0 * gamma) +
         problem.spectrum.log_pseudo_determinant();
}

// tr(P_C mean_c^T mean_c) with P_C = I (x) (eps 1 1^T + 2 L): per latent dimension r, the d_y x n
// block W of mean_c contributes eps |W 1|^2 + 2 tr(W L W^T).
double c_prior_quadratic(const LllvmProblem& problem, const Matrix& mean_c) {
  const Index n = problem.nodes();
  double sum = 0.0;
  for (Index r = 0; r < problem.latent_dims; ++r) {
    const auto w = mean_c.middleCols(r * n, n);
    sum += problem.epsilon * w.rowwise().sum().squaredNorm();
    sum += 2.0 * (w * problem.graph.laplacian).cwiseProduct(w).sum();
  }
  return sum;
}

double x_prior_quadratic(const LllvmProblem& problem, const Vector& mean_x) {
  const Index n = problem.nodes();
  double sum = 0.0;
  for (Index r = 0; r < problem.latent_dims; ++r) {
    const auto x = mean_x.segment(r * n, n);
    sum += x.dot(problem.graph.laplacian * x);
  }
  return 2.0 * sum;
}

double neg_kl_c(const LllvmProblem& problem, const LllvmState& state, double log_det_cov_c) {
  const auto n = static_cast<double>(problem.nodes());
  const auto dx = static_cast<double>(problem.latent_dims);
  const auto dy = static_cast<double>(problem.data_dims());
  const double log_det_prior = dx * (log_det_graph_precision(problem, 1.0));  // log |P_C|
  const double trace =
      problem.epsilon * sum_of_diagonal_blocks(state.cov_c, problem.latent_dims) +
      2.0 * trace_with_diagonal_blocks(problem.graph.laplacian, state.cov_c, problem.latent_dims);
  return 0.5 * dy * (log_det_cov_c + log_det_prior) - 0.5 * dy * trace + 0.5 * n * dx * dy -
         0.5 * c_prior_quadratic(problem, state.mean_c);
}

double neg_kl_x(const LllvmProblem& problem, const LllvmState& state, double log_det_cov_x) {
  const auto n = static_cast<double>(problem.nodes());
  const auto dx = static_cast<double>(problem.latent_dims);
  const double log_det_prior = dx * (state.alpha + 2.0 * problem.spectrum.eigenvalues.array()).log().sum();
  const double trace =
      state.alpha * state.cov_x.trace() +
      2.0 * trace_with_diagonal_blocks(problem.graph.laplacian, state.cov_x, problem.latent_dims);
  const double quadratic =
      state.alpha * state.mean_x.squaredNorm() + x_prior_quadratic(problem, state.mean_x);
  return 0.5 * (log_det_cov_x + log_det_prior) - 0.5 * trace + 0.5 * n * dx - 0.5 * quadratic;
}

}  // namespace

BoundStatistics bound_statistics(const LllvmProblem& problem, const LllvmState& state) {
  const Matrix form = phi_gamma(problem.operators, second_moment_x(state), problem.latent_dims);
  return {form.cwiseProduct(second_moment_c(state)).sum(), covariance_log_determinant(state.cov_x, "cov_x"),
          covariance_log_determinant(state.cov_c, "cov_c")};
}

LllvmBound lllvm_bound(const LllvmProblem& problem, const LllvmState& state,
                       const BoundStatistics& statistics) {
  const auto n = static_cast<double>(problem.nodes());
  const auto dy = static_cast<double>(problem.data_dims());
  const double gamma = state.gamma;
  LllvmBound bound;
  bound.expected_quadratic = -0.25 * gamma * statistics.quadratic_form;
  bound.expected_linear = gamma * state.mean_c.cwiseProduct(expected_h(problem, state.mean_x)).sum();
  bound.data_quadratic =
      -0.5 * problem.epsilon * problem.data_sum_squared - gamma * problem.data_laplacian_trace;
  bound.log_normaliser =
      -0.5 * n * dy * std::log(2.0 * std::numbers::pi) + 0.5 * dy * log_det_graph_precision(problem, gamma);
  bound.neg_kl_c = neg_kl_c(problem, state, statistics.log_det_cov_c);
  bound.neg_kl_x = neg_kl_x(problem, state, statistics.log_det_cov_x);
  return bound;
}

}  // namespace gplvm

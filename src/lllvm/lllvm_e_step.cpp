#include "gplvm/lllvm/lllvm_e_step.hpp"

#include "gplvm/linalg/cholesky.hpp"
#include "gplvm/lllvm/coupling_forms.hpp"
#include "gplvm/lllvm/dimension_major.hpp"
#include "gplvm/lllvm/linear_statistics.hpp"

namespace gplvm {
namespace {

SparseMatrix shifted_laplacian(const LllvmProblem& problem, double shift) {
  SparseMatrix identity(problem.nodes(), problem.nodes());
  identity.setIdentity();
  return 2.0 * problem.graph.laplacian + shift * identity;
}

// tr(form <m m^T> + form cov) for a symmetric form: the expectation of m^T form m under N(m, cov).
double expected_quadratic(const Matrix& form, const Matrix& covariance,
                          const Eigen::Ref<const Matrix>& means) {
  return form.cwiseProduct(covariance).sum() + (means * form).cwiseProduct(means).sum();
}

}  // namespace

void update_q_x(const LllvmProblem& problem, LllvmState& state, BoundStatistics& statistics) {
  const Matrix form = phi_a(problem.operators, second_moment_c(state), problem.latent_dims);
  Matrix precision = (0.5 * state.gamma) * form;
  add_to_diagonal_blocks(precision, shifted_laplacian(problem, state.alpha), problem.latent_dims);
  const CholeskyFactor factor = CholeskyFactor::factorize(std::move(precision), "the precision of q(x)");
  state.cov_x = factor.inverse();
  state.mean_x = expected_b(problem, state.mean_c, state.gamma);
  factor.solve_in_place(state.mean_x);
  statistics.log_det_cov_x = -factor.log_determinant();
  statistics.quadratic_form = expected_quadratic(form, state.cov_x, state.mean_x.transpose());
}

void update_q_c(const LllvmProblem& problem, LllvmState& state, BoundStatistics& statistics) {
  const Index n = problem.nodes();
  const Matrix form = phi_gamma(problem.operators, second_moment_x(state), problem.latent_dims);
  Matrix precision = (0.5 * state.gamma) * form;
  add_to_diagonal_blocks(precision, shifted_laplacian(problem, 0.0), problem.latent_dims);
  // eps 1 1^T, the prior's hold on the average linear map, is dense in every diagonal block.
  for (Index r = 0; r < problem.latent_dims; ++r)
    precision.block(r * n, r * n, n, n).array() += problem.epsilon;
  const CholeskyFactor factor = CholeskyFactor::factorize(std::move(precision), "the precision of q(C)");
  state.cov_c = factor.inverse();
  Matrix mean_transposed = state.gamma * expected_h(problem, state.mean_x).transpose();
  factor.solve_in_place(mean_transposed);
  state.mean_c = mean_transposed.transpose();
  statistics.log_det_cov_c = -factor.log_determinant();
  const auto dy = static_cast<double>(problem.data_dims());
  statistics.quadratic_form = expected_quadratic(form, dy * state.cov_c, state.mean_c);
}

}  // namespace gplvm

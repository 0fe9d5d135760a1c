// LL-LVM's closed forms against the brute-force Kronecker oracle (lllvm_oracle.hpp) at n = 7: the
// linear and quadratic re-expressions of the likelihood, Phi_A and Phi_Gamma against A_E^T Sigma_y A_E,
// Q L~ Q^T and the paper's quadruple sums, the Laplacian identities, eq. (35) and the KL terms,
// each through the dimension-major order the library uses.
#include <gtest/gtest.h>

#include "gplvm/lllvm/coupling_forms.hpp"
#include "gplvm/lllvm/dimension_major.hpp"
#include "gplvm/lllvm/linear_statistics.hpp"
#include "gplvm/lllvm/lllvm_bound.hpp"
#include "lllvm_oracle.hpp"
#include "lllvm_test_problems.hpp"

namespace gplvm::testing {
namespace {

namespace oracle = lllvm_oracle;

double relative_error(const Matrix& a, const Matrix& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1e-300, b.cwiseAbs().maxCoeff());
}

double relative_error(double a, double b) {
  return std::abs(a - b) / std::max(1e-300, std::abs(b));
}

// A random instance at n = 7, d_y = 3, gamma = 0.7, eps = 1e-2, with the library's problem on the
// same graph and data.
struct ClosedFormsTest : ::testing::TestWithParam<Index> {
  Index dx = GetParam();
  oracle::Instance p;
  LllvmProblem problem;
  Permutation to_dm;

  ClosedFormsTest()
      : p{random_connected_adjacency(7, 5),
          random_matrix(7, 3, 5, 10),
          random_matrix(3, 7 * GetParam(), 5, 11),
          random_matrix(7 * GetParam(), 1, 5, 12),
          GetParam(),
          0.7,
          1e-2},
        problem(lllvm_problem(p.y, graph_of(p.g), GetParam(), 1e-2)),
        to_dm(node_to_dimension_major(7, GetParam())) {}

  Matrix to_node_major(const Matrix& dm) const { return to_dm.transpose() * dm * to_dm; }
  Matrix columns_to_node_major(const Matrix& dm) const { return dm * to_dm; }
  Matrix c_dm() const { return p.c * to_dm.transpose(); }
  Vector x_dm() const { return to_dm * p.x; }
  CouplingOperators operators_with(const Matrix& kernel) const {
    return coupling_operators(problem.graph, kernel);
  }
};

TEST_P(ClosedFormsTest, OracleAgreesWithItself) {
  EXPECT_LT(relative_error(oracle::a_e(p) * p.x, oracle::e_direct(p)), 1e-13);
  const Matrix e = p.c * oracle::q_matrix(p);  // column i is e_i
  EXPECT_LT(relative_error(Eigen::Map<const Vector>(e.data(), e.size()), oracle::e_direct(p)), 1e-13);
}

TEST_P(ClosedFormsTest, LinearTermsAgree) {
  const Vector y = Eigen::Map<const Vector>(Matrix(p.y.transpose()).data(), p.y.size());
  const double ye = y.dot(oracle::e_direct(p));
  const Vector b = to_dm.transpose() * expected_b(problem, c_dm(), p.gamma);
  const Matrix h = columns_to_node_major(expected_h(problem, x_dm()));
  EXPECT_LT(relative_error(b, oracle::b_vector(p)), 1e-13);
  EXPECT_LT(relative_error(h, oracle::h_matrix(p)), 1e-13);
  EXPECT_LT(relative_error(p.x.dot(b), ye), 1e-13);
  EXPECT_LT(relative_error(p.gamma * p.c.cwiseProduct(h).sum(), ye), 1e-13);
}

TEST_P(ClosedFormsTest, PhiAIsTheExpectedQuadraticFormInX) {
  const Matrix a = oracle::a_e(p).transpose() * oracle::sigma_y(p) * oracle::a_e(p);
  const Matrix ctc = p.c.transpose() * p.c;
  const Matrix ctc_dm = to_dm * ctc * to_dm.transpose();
  const Matrix l_tilde = oracle::l_tilde(p.g, p.gamma, p.epsilon);
  const Matrix with_l_tilde = p.gamma * p.gamma * to_node_major(phi_a(operators_with(l_tilde), ctc_dm, dx));
  const Matrix with_pinv = 0.5 * p.gamma * to_node_major(phi_a(problem.operators, ctc_dm, dx));
  const Matrix quadruple = p.gamma * p.gamma * oracle::quadruple_sum(p.g, l_tilde, ctc, dx, true);
  EXPECT_LT(relative_error(with_l_tilde, a), 1e-12);
  EXPECT_LT(relative_error(with_pinv, a), 1e-12);
  EXPECT_LT(relative_error(quadruple, a), 1e-12);
  const Vector e = oracle::e_direct(p);
  EXPECT_LT(relative_error(p.x.dot(with_pinv * p.x), e.dot(oracle::sigma_y(p) * e)), 1e-12);
}

TEST_P(ClosedFormsTest, PhiGammaIsTheExpectedQuadraticFormInC) {
  const Matrix q = oracle::q_matrix(p);
  const Matrix l_tilde = oracle::l_tilde(p.g, p.gamma, p.epsilon);
  const Matrix gamma_matrix = q * l_tilde * q.transpose();
  const Matrix xxt = p.x * p.x.transpose();
  const Matrix xxt_dm = to_dm * xxt * to_dm.transpose();
  const Matrix with_l_tilde =
      p.gamma * p.gamma * to_node_major(phi_gamma(operators_with(l_tilde), xxt_dm, dx));
  const Matrix with_pinv = 0.5 * p.gamma * to_node_major(phi_gamma(problem.operators, xxt_dm, dx));
  const Matrix quadruple = p.gamma * p.gamma * oracle::quadruple_sum(p.g, l_tilde, xxt, dx, false);
  EXPECT_LT(relative_error(with_l_tilde, gamma_matrix), 1e-12);
  EXPECT_LT(relative_error(with_pinv, gamma_matrix), 1e-12);
  EXPECT_LT(relative_error(quadruple, gamma_matrix), 1e-12);
  const Vector e = oracle::e_direct(p);
  EXPECT_LT(relative_error((with_pinv * p.c.transpose() * p.c).trace(), e.dot(oracle::sigma_y(p) * e)),
            1e-12);
}

// Under q the forms see second moments, not outer products: eq. (59) and (72) for any PSD moment.
TEST_P(ClosedFormsTest, FormsMatchTheQuadrupleSumsForAnyMoment) {
  const Index size = 7 * dx;
  const Matrix moment = random_spd(size, 5, 20);
  const Matrix moment_dm = to_dm * moment * to_dm.transpose();
  const Matrix& k = problem.spectrum.pseudo_inverse;
  EXPECT_LT(relative_error(to_node_major(phi_a(problem.operators, moment_dm, dx)),
                           oracle::quadruple_sum(p.g, k, moment, dx, true)),
            1e-12);
  EXPECT_LT(relative_error(to_node_major(phi_gamma(problem.operators, moment_dm, dx)),
                           oracle::quadruple_sum(p.g, k, moment, dx, false)),
            1e-12);
}

// tr(Phi_A(M_C) M_x) = tr(Phi_Gamma(M_x) M_C): both are E_q[e^T Sigma_y e] (2 / gamma).
TEST_P(ClosedFormsTest, CrossTracesAgree) {
  const Matrix m_c = random_spd(7 * dx, 5, 21), m_x = random_spd(7 * dx, 5, 22);
  const double via_a = phi_a(problem.operators, m_c, dx).cwiseProduct(m_x).sum();
  const double via_gamma = phi_gamma(problem.operators, m_x, dx).cwiseProduct(m_c).sum();
  EXPECT_LT(relative_error(via_a, via_gamma), 1e-12);
}

TEST_P(ClosedFormsTest, LaplacianIdentities) {
  const Index n = p.n();
  const Matrix precision = p.epsilon * Matrix::Ones(n, n) + 2.0 * p.gamma * oracle::laplacian(p.g);
  const double log_det = std::log(precision.determinant());
  const double formula = problem.spectrum.log_pseudo_determinant() + std::log(n * p.epsilon) +
                         (n - 1.0) * std::log(2.0 * p.gamma);
  EXPECT_LT(relative_error(formula, log_det), 1e-12);
  const Matrix split =
      Matrix::Ones(n, n) / (p.epsilon * n * n) + problem.spectrum.pseudo_inverse / (2.0 * p.gamma);
  EXPECT_LT(relative_error(split, precision.inverse()), 1e-12);
  const Matrix laplacian = oracle::laplacian(p.g);
  EXPECT_LT(relative_error(laplacian * problem.spectrum.pseudo_inverse * laplacian, laplacian), 1e-12);
}

// The bound's likelihood terms at a point mass (zero covariances) are log N(y; Sigma_y e, Sigma_y),
// eq. (35), built from the explicit Kronecker matrices.
TEST_P(ClosedFormsTest, LikelihoodTermsAreEquation35) {
  LllvmState state{x_dm(), Matrix::Zero(7 * dx, 7 * dx), c_dm(), Matrix::Zero(7 * dx, 7 * dx), p.gamma, 1e-3};
  const Matrix ctc_dm = state.mean_c.transpose() * state.mean_c;
  const Matrix form = phi_gamma(problem.operators, state.mean_x * state.mean_x.transpose(), dx);
  const LllvmBound bound = lllvm_bound(problem, state, {form.cwiseProduct(ctc_dm).sum(), 0.0, 0.0});
  const Matrix sigma = oracle::sigma_y(p);
  const Vector y = Eigen::Map<const Vector>(Matrix(p.y.transpose()).data(), p.y.size());
  const double expected = oracle::log_normal(y, sigma * oracle::e_direct(p), sigma);
  EXPECT_LT(relative_error(bound.expected_log_likelihood(), expected), 1e-12);
}

// -KL(q(x) || p(x)) and -KL(q(C) || p(C)) against dense Gaussians: p(x) = N(0, ((alpha I + 2 L) (x) I)^-1),
// vec C ~ N(0, (P (x) I_dy)^-1) with P = eps 1 1^T + 2 L (node-major), q(C)'s covariance cov_c (x) I_dy.
TEST_P(ClosedFormsTest, KlTermsMatchDenseGaussians) {
  const Index n = p.n(), size = n * dx, dy = p.dy();
  const double alpha = 0.3;
  const Matrix cov_x = random_spd(size, 5, 30), cov_c = random_spd(size, 5, 31);
  LllvmState state{
      x_dm(), to_dm * cov_x * to_dm.transpose(), c_dm(), to_dm * cov_c * to_dm.transpose(), p.gamma, alpha};
  const BoundStatistics statistics = bound_statistics(problem, state);
  const LllvmBound bound = lllvm_bound(problem, state, statistics);
  const Matrix laplacian = oracle::laplacian(p.g);
  const Matrix id_x = Matrix::Identity(dx, dx);
  const Matrix prior_x = oracle::kron(alpha * Matrix::Identity(n, n) + 2.0 * laplacian, id_x);
  EXPECT_LT(relative_error(-bound.neg_kl_x, oracle::gaussian_kl(p.x, cov_x, prior_x)), 1e-11);
  // vec C in the node-major column order: column (i, r) of C is d_y consecutive entries.
  const Matrix prior_c_columns = oracle::kron(p.epsilon * Matrix::Ones(n, n) + 2.0 * laplacian, id_x);
  const Matrix id_y = Matrix::Identity(dy, dy);
  const Vector vec_c = Eigen::Map<const Vector>(p.c.data(), p.c.size());
  const double kl_c =
      oracle::gaussian_kl(vec_c, oracle::kron(cov_c, id_y), oracle::kron(prior_c_columns, id_y));
  EXPECT_LT(relative_error(-bound.neg_kl_c, kl_c), 1e-11);
}

INSTANTIATE_TEST_SUITE_P(LatentDims, ClosedFormsTest, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace gplvm::testing

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "gplvm/core/error.hpp"
#include "gplvm/linalg/cholesky.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::CapturedLog;
using testing::random_normal;

Matrix spd(Index n, std::uint64_t seed) {
  const Matrix G = random_normal(n, n, seed);
  return G * G.transpose() + Matrix::Identity(n, n);
}

TEST(Cholesky, FactorisesSpdWithoutJitterOrWarning) {
  const Matrix K = spd(37, 1);
  CapturedLog log;
  const auto f = CholeskyFactor::factorize(K, "test matrix");
  EXPECT_EQ(f.jitter(), 0.0);
  EXPECT_TRUE(log.warnings().empty());
  const Matrix L = f.storage().triangularView<Eigen::Lower>();
  EXPECT_LT((L * L.transpose() - K).norm() / K.norm(), 1e-14);
}

TEST(Cholesky, SolveInverseAndLogDetMatchAnIndependentLU) {
  const Matrix K = spd(25, 2);
  const auto f = CholeskyFactor::factorize(K, "test matrix");
  const Eigen::PartialPivLU<Matrix> lu(K);
  const Matrix B = random_normal(25, 3, 3);
  Matrix X = B;
  f.solve_in_place(X);
  EXPECT_LT((X - lu.solve(B)).norm() / X.norm(), 1e-12);
  EXPECT_LT((f.inverse() - lu.inverse()).norm() / lu.inverse().norm(), 1e-12);
  EXPECT_NEAR(f.log_determinant(), std::log(lu.determinant()), 1e-10);
  Matrix half = B;
  f.solve_lower_in_place(half);
  EXPECT_NEAR(half.squaredNorm(), (B.transpose() * lu.solve(B)).trace(), 1e-9);
}

TEST(Cholesky, RankDeficientMatrixSucceedsWithLoggedJitter) {
  const Matrix Z = random_normal(12, 2, 4);
  const Matrix K = Z * Z.transpose();  // rank 2, positive semi-definite
  CapturedLog log;
  const auto f = CholeskyFactor::factorize(K, "rank-deficient block");
  EXPECT_GT(f.jitter(), 0.0);
  ASSERT_FALSE(log.warnings().empty());
  EXPECT_TRUE(log.any_warning_contains("rank-deficient block"));
  // The first escalation adds 1e-6 * mean(diag K).
  const double first = 1e-6 * K.diagonal().mean();
  EXPECT_TRUE(log.any_warning_contains("jitter")) << log.warnings().front();
  EXPECT_GE(f.jitter(), first * (1 - 1e-12));
  const Matrix L = f.storage().triangularView<Eigen::Lower>();
  Matrix jittered = K;
  jittered.diagonal().array() += f.jitter();
  EXPECT_LT((L * L.transpose() - jittered).norm() / K.norm(), 1e-12);
}

TEST(Cholesky, IndefiniteMatrixFailsAfterBoundedEscalationNamingTheMatrix) {
  Matrix K = spd(8, 5);
  K(3, 3) = -50.0;  // far beyond any jitter
  CapturedLog log;
  try {
    CholeskyFactor::factorize(K, "indefinite test block");
    FAIL() << "expected NumericalError";
  } catch (const NumericalError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("indefinite test block"), std::string::npos) << what;
    EXPECT_NE(what.find("column"), std::string::npos) << what;
    EXPECT_NE(what.find("after 5 escalations"), std::string::npos) << what;
    EXPECT_NE(what.find("duplicate data rows"), std::string::npos) << what;
  }
  // The error tells the story (5 escalations and the likely causes); no warning repeats it.
  EXPECT_TRUE(log.warnings().empty());
}

// Tenfold per try from 1e-6 mean(diag K): with K's eigenvalue -5e-5 and mean(diag K) ~ 0.75 the
// jitters 7.5e-7 and 7.5e-6 fail and 7.5e-5 succeeds, the third try; one warning reports it, and two
// tries are not enough.
TEST(Cholesky, JitterGrowsTenfoldPerTryAndOneWarningReportsIt) {
  Matrix K = Matrix::Identity(4, 4);
  K(0, 0) = -5e-5;
  const double base = 1e-6 * K.diagonal().mean();
  CholeskyOptions options;
  options.max_jitter_tries = 2;
  CapturedLog log;
  EXPECT_THROW(CholeskyFactor::factorize(K, "m", options), NumericalError);
  EXPECT_TRUE(log.warnings().empty());
  options.max_jitter_tries = 5;
  const auto f = CholeskyFactor::factorize(K, "m", options);
  EXPECT_NEAR(f.jitter(), base * 100.0, 1e-12);
  ASSERT_EQ(log.warnings().size(), 1u);
  std::ostringstream expected;
  expected << "jitter " << base * 100.0 << " (3 tries)";
  EXPECT_TRUE(log.any_warning_contains(expected.str())) << log.warnings().front();
}

TEST(Cholesky, NonFiniteAndNonSquareInputsAreErrors) {
  Matrix K = Matrix::Identity(3, 3);
  K(1, 2) = std::nan("");
  EXPECT_THROW(CholeskyFactor::factorize(K, "m"), NumericalError);
  EXPECT_THROW(CholeskyFactor::factorize(Matrix::Identity(3, 2), "m"), InputError);
}

}  // namespace
}  // namespace gplvm

// The Wishart covariance objective on any CovarianceOperator (objectives/covariance_operator.hpp) at
// 1-4 ranks with uneven row splits (n = 103): the operators' products against dense n x n ones, the
// objective on dense rows of S_hat = F F^T against the same objective on the factor (the low-rank
// route) and against the dense n x n formulas of support/wishart_problems.hpp, gradients on the
// dense route against finite differences, and every distributed evaluation against one rank.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "gplvm/objectives/covariance_operator.hpp"
#include "gplvm/objectives/wishart_covariance.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "graph/graph_test_data.hpp"
#include "support/test_support.hpp"
#include "support/wishart_problems.hpp"

namespace gplvm {
namespace {

using testing::max_relative_error;
using testing::random_normal;

constexpr Index kRows = 103, kDim = 7, kLatent = 3;

// This rank's block of rows of a matrix every rank holds whole.
struct Rows {
  Index begin, count;
  Rows(const Communicator& comm, Index n) {
    const RowPartition partition(static_cast<std::uint64_t>(n), comm.size());
    begin = static_cast<Index>(partition.begin(comm.rank()));
    count = static_cast<Index>(partition.count(comm.rank()));
  }
  template <typename M>
  auto of(const M& m) const {
    return m.middleRows(begin, count);
  }
};

double global_relative(const Matrix& local, const Matrix& expected_local, const Matrix& expected_all,
                       const Communicator& comm) {
  return std::sqrt(comm.allreduce_sum((local - expected_local).squaredNorm())) / expected_all.norm();
}

TEST(CovarianceOperator, ProductsAndTracesEqualDense) {
  const Communicator comm;
  const Rows rows(comm, kRows);
  const RowMatrix F = testing::wishart_test_factor(kRows, kDim, 41);
  const Matrix S = F * F.transpose(), X = random_normal(kRows, kLatent, 42), SX = S * X;
  const LowRankCovariance low_rank(comm, rows.of(F));
  const DenseRowCovariance dense(comm, rows.of(S));
  for (const CovarianceOperator* op :
       {static_cast<const CovarianceOperator*>(&low_rank), static_cast<const CovarianceOperator*>(&dense)}) {
    EXPECT_EQ(op->num_rows(), kRows);
    EXPECT_EQ(op->local_rows(), rows.count);
    EXPECT_LT(global_relative(op->apply(rows.of(X)), rows.of(SX), SX, comm), 1e-14);
    EXPECT_NEAR(comm.allreduce_sum(op->local_trace()), S.trace(), 1e-13 * S.trace());
  }
}

TEST(CovarianceOperator, DenseRowsMustMakeASquareMatrix) {
  const Communicator comm;
  const Rows rows(comm, kRows);
  const Matrix S = Matrix::Identity(kRows, kRows + 1);  // one column too many
  EXPECT_EQ(testing::input_error_of([&] { DenseRowCovariance bad(comm, rows.of(S)); }).key, "covariance");
}

// The dense operator's objective against the dense n x n formulas and against the factor's objective.
TEST(WishartCovariance, DenseOperatorEqualsLowRankAndDenseFormulas) {
  const Communicator comm;
  const Rows rows(comm, kRows);
  const RowMatrix F = testing::wishart_test_factor(kRows, kDim, 43);
  const Matrix S = F * F.transpose(), X = random_normal(kRows, kLatent, 44);
  const DenseRowCovariance dense_rows(comm, rows.of(S));
  const WishartCovariance dense(comm, dense_rows, kDim), low_rank(comm, RowMatrix(rows.of(F)), kDim);
  const testing::DenseWishart oracle = testing::dense_covariance_objective(S, X, 0.3, kDim);
  const WishartEvaluation a = dense.evaluate(rows.of(X), 0.3), b = low_rank.evaluate(rows.of(X), 0.3);
  const double value_error = std::abs(a.value - b.value) / std::abs(b.value);
  const double gradient_error = global_relative(a.d_latents, b.d_latents, oracle.d_latents, comm);
  const double oracle_error = global_relative(a.d_latents, rows.of(oracle.d_latents), oracle.d_latents, comm);
  EXPECT_LT(value_error, 1e-12);
  EXPECT_LT(gradient_error, 1e-12);
  EXPECT_NEAR(a.d_noise, b.d_noise, 1e-12 * std::abs(b.d_noise));
  EXPECT_NEAR(a.value, oracle.value, 1e-11 * std::abs(oracle.value));
  EXPECT_LT(oracle_error, 1e-10);
  EXPECT_NEAR(a.d_noise, oracle.d_noise, 1e-10 * std::abs(oracle.d_noise));
  EXPECT_NEAR(dense.trace(), low_rank.trace(), 1e-13 * low_rank.trace());
  if (comm.rank() == 0)
    std::printf(
        "[ measured ] dense rows vs factor: value %.2e, gradient %.2e; vs n x n formulas: gradient %.2e\n",
        value_error, gradient_error, oracle_error);
}

// Central differences of f in (X, s2) on one rank (every rank does the same small problem).
TEST(WishartCovariance, DenseOperatorGradientMatchesFiniteDifferences) {
  const Communicator self(MPI_COMM_SELF);
  const Index n = 17;
  const RowMatrix F = testing::wishart_test_factor(n, kDim, 45);
  const Matrix S = F * F.transpose();
  const DenseRowCovariance rows(self, S);
  const WishartCovariance objective(self, rows, 2.5);
  const Matrix X = random_normal(n, kLatent, 46);
  const double noise = 0.4;
  Vector point(X.size() + 1);
  point << X.reshaped(), noise;
  const auto value = [&](const Vector& p) {
    return objective.evaluate(p.head(X.size()).reshaped(n, kLatent), p[X.size()], false).value;
  };
  const WishartEvaluation e = objective.evaluate(X, noise);
  Vector analytic(point.size());
  analytic << e.d_latents.reshaped(), e.d_noise;
  const Vector numeric = testing::finite_difference_gradient(value, point);
  const double error = max_relative_error(analytic, numeric);
  EXPECT_LT(error, 1e-6);
  EXPECT_NEAR(e.d_log_noise, noise * e.d_noise, 1e-14 * std::abs(e.d_log_noise));
  std::printf("[ measured ] dense-operator gradient vs finite differences: %.2e (relative)\n", error);
}

TEST(WishartCovariance, DenseOperatorAtRanksEqualsOneRank) {
  const Communicator world, self(MPI_COMM_SELF);
  const Rows rows(world, kRows);
  const RowMatrix F = testing::wishart_test_factor(kRows, kDim, 47);
  const Matrix S = F * F.transpose(), X = random_normal(kRows, kLatent, 48);
  const DenseRowCovariance all_rows(self, S), my_rows(world, rows.of(S));
  const WishartCovariance serial(self, all_rows, 1.0), distributed(world, my_rows, 1.0);
  EXPECT_EQ(distributed.num_rows(), kRows);
  const WishartEvaluation a = distributed.evaluate(rows.of(X), 0.2), b = serial.evaluate(X, 0.2);
  EXPECT_NEAR(a.value, b.value, 1e-12 * std::abs(b.value));
  EXPECT_NEAR(a.d_noise, b.d_noise, 1e-12 * std::abs(b.d_noise));
  const double error = global_relative(a.d_latents, rows.of(b.d_latents), b.d_latents, world);
  EXPECT_LT(error, 1e-12);
  if (world.rank() == 0) std::printf("[ measured ] ranks vs one rank: gradient %.2e (relative)\n", error);
}

}  // namespace
}  // namespace gplvm

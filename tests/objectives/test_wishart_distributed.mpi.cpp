// The ProbDR Wishart objectives and the covariance closed form over 1-4 ranks with uneven row
// splits (n = 103), against the same computation on one rank (MPI_COMM_SELF, all rows), and
// L-BFGS (PETSc TAO) from a random start reaching the closed-form optimum up to rotation.
//
// Tolerances: the distributed runs sum X^T X, F^T X (and F^T F) as per-rank partial sums, in another
// order than one rank does, so results agree to rounding, not bitwise: 1e-12 relative for values
// and gradients (a few ulps, amplified by the l x l Cholesky solve of a well-conditioned A), 1e-10
// for the closed-form latents (an eigenvector's rounding error is amplified by 1 / eigengap).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "gplvm/objectives/precision_operator.hpp"
#include "gplvm/objectives/wishart_covariance.hpp"
#include "gplvm/objectives/wishart_precision.hpp"
#include "gplvm/objectives/wishart_spectral.hpp"
#include "gplvm/optim/tao_minimizer.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "support/petsc_environment.hpp"
#include "support/test_support.hpp"
#include "support/wishart_problems.hpp"

namespace gplvm {
namespace {

using testing::max_relative_error;
using testing::random_normal;

const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

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

constexpr Index kRows = 103, kDim = 7, kLatent = 2;

void expect_same_evaluation(const WishartEvaluation& distributed, const WishartEvaluation& serial,
                            const Rows& rows) {
  EXPECT_NEAR(distributed.value, serial.value, 1e-12 * std::abs(serial.value));
  EXPECT_NEAR(distributed.d_noise, serial.d_noise, 1e-12 * std::abs(serial.d_noise));
  const Matrix expected = rows.of(serial.d_latents);
  const double gradient_error =
      rows.count > 0 ? max_relative_error(distributed.d_latents.reshaped(), expected.reshaped()) : 0.0;
  EXPECT_LT(gradient_error, 1e-12);
  std::printf("ranks vs one rank: value %.2g, gradient %.2g (relative, this rank's rows)\n",
              std::abs(distributed.value - serial.value) / std::abs(serial.value), gradient_error);
}

TEST(WishartDistributed, CovarianceObjectiveMatchesOneRank) {
  const Communicator world, self(MPI_COMM_SELF);
  const Rows rows(world, kRows);
  const RowMatrix F = testing::wishart_test_factor(kRows, kDim, 41);
  const Matrix X = random_normal(kRows, kLatent, 42);
  const WishartCovariance serial(self, F, kDim);
  const WishartCovariance distributed(world, rows.of(F), kDim);
  EXPECT_EQ(distributed.num_rows(), kRows);
  expect_same_evaluation(distributed.evaluate(rows.of(X), 0.3), serial.evaluate(X, 0.3), rows);
}

TEST(WishartDistributed, PrecisionObjectiveMatchesOneRank) {
  const Communicator world, self(MPI_COMM_SELF);
  const Rows rows(world, kRows);
  const Matrix Gamma = testing::wishart_test_precision(kRows, 43);
  const Matrix X = random_normal(kRows, kLatent, 44);
  const DenseRowPrecision serial_rows(self, Gamma), distributed_rows(world, rows.of(Gamma));
  const WishartPrecision serial(self, serial_rows, kDim, 0.1);
  const WishartPrecision distributed(world, distributed_rows, kDim, 0.1);
  EXPECT_NEAR(distributed.trace(), serial.trace(), 1e-13 * serial.trace());
  expect_same_evaluation(distributed.evaluate(rows.of(X), 0.8), serial.evaluate(X, 0.8), rows);
}

TEST(WishartDistributed, CovarianceClosedFormMatchesOneRank) {
  const Communicator world, self(MPI_COMM_SELF);
  const Rows rows(world, kRows);
  const RowMatrix F = testing::wishart_test_factor(kRows, kDim, 45);
  for (const WishartNoise noise : {WishartNoise::estimated(), WishartNoise::fixed(0.01)}) {
    const WishartOptimum serial = spectral_covariance_fit(self, F, kLatent, noise);
    const WishartOptimum distributed = spectral_covariance_fit(world, rows.of(F), kLatent, noise);
    EXPECT_NEAR(distributed.noise, serial.noise, 1e-12 * serial.noise);
    EXPECT_LT(max_relative_error(distributed.eigenvalues, serial.eigenvalues), 1e-12);
    const Matrix expected = rows.of(serial.latents);
    if (rows.count > 0) {
      EXPECT_LT((distributed.latents - expected).cwiseAbs().maxCoeff(),
                1e-10 * serial.latents.cwiseAbs().maxCoeff());
    }
  }
}

// Minimises a Wishart objective over (this rank's rows of X, log noise on rank 0) with TAO's
// L-BFGS from a random start (noise 1), and returns the Gram X X^T of the result on every rank.
template <typename Objective>
Matrix lbfgs_gram(const Communicator& comm, const Objective& objective, const Rows& rows, Index latent_dim) {
  const Index local_size = rows.count * latent_dim + (comm.is_root() ? 1 : 0);
  TaoOptions options;
  // Below the gradient's rounding floor: TAO stops there or stalls at the floor (1e-11..1e-10 for
  // f ~ 800, where no line search can see f decrease), which leaves the Gram within ~1e-9.
  options.gatol = 1e-12;
  options.grtol = 0;
  options.max_iterations = 500;
  TaoMinimizer minimizer(comm, local_size, options);
  Vector start(local_size);
  start.head(rows.count * latent_dim) =
      rows.of(random_normal(objective.num_rows(), latent_dim, 51)).reshaped();
  if (comm.is_root()) start[local_size - 1] = 0.0;  // log 1
  const TaoResult result = minimizer.minimize(start, [&](const ConstVectorRef& x, VectorRef g) {
    double log_noise = comm.is_root() ? x[local_size - 1] : 0.0;
    comm.broadcast(&log_noise, 1, 0);
    const Matrix latents = x.head(rows.count * latent_dim).reshaped(rows.count, latent_dim);
    const WishartEvaluation e = objective.evaluate(latents, std::exp(log_noise));
    g.head(rows.count * latent_dim) = e.d_latents.reshaped();
    if (comm.is_root()) g[local_size - 1] = e.d_log_noise;
    return e.value;
  });
  const Matrix latents = result.solution.head(rows.count * latent_dim).reshaped(rows.count, latent_dim);
  const Matrix all = comm.allgather_rows(ConstMatrixRef(latents));
  if (comm.is_root())
    std::printf("L-BFGS: %d iterations, stopped on %s, ||g|| = %.2g\n", result.iterations,
                to_string(result.reason).c_str(), result.gradient_norm);
  return all * all.transpose();
}

// d > n: S_hat has no zero eigenvalues, the noise estimate is not small, and L-BFGS converges fast.
constexpr Index kSmallRows = 23, kSmallDim = 30, kSmallLatent = 3;

TEST(WishartDistributed, LbfgsReachesTheCovarianceClosedForm) {
  const Communicator world, self(MPI_COMM_SELF);
  const Rows rows(world, kSmallRows);
  const RowMatrix F = testing::wishart_test_factor(kSmallRows, kSmallDim, 52);
  const WishartCovariance objective(world, rows.of(F), kSmallDim);
  const WishartOptimum fit = spectral_covariance_fit(self, F, kSmallLatent, WishartNoise::estimated());
  const Matrix gram = lbfgs_gram(world, objective, rows, kSmallLatent);
  const double error = (gram - fit.latents * fit.latents.transpose()).norm();
  EXPECT_LT(error, 1e-8);
  if (world.is_root()) std::printf("covariance: ||X X^T - X_hat X_hat^T||_F = %.3g\n", error);
}

TEST(WishartDistributed, LbfgsReachesThePrecisionClosedForm) {
  const Communicator world;
  const Rows rows(world, kSmallRows);
  const Matrix Gamma = testing::wishart_test_precision(kSmallRows, 53);
  const DenseRowPrecision precision(world, rows.of(Gamma));
  const WishartPrecision objective(world, precision, kDim, 0.0);
  const WishartOptimum fit = spectral_precision_fit(Gamma, 0.0, kSmallLatent, WishartNoise::estimated());
  const Matrix gram = lbfgs_gram(world, objective, rows, kSmallLatent);
  const double error = (gram - fit.latents * fit.latents.transpose()).norm();
  EXPECT_LT(error, 1e-8);
  if (world.is_root()) std::printf("precision: ||X X^T - X_hat X_hat^T||_F = %.3g\n", error);
}

}  // namespace
}  // namespace gplvm

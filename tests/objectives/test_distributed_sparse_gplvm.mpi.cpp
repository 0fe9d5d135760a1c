// The sparse and Bayesian GPLVM bounds distributed by partial sums, under mpirun at 1-4 ranks:
// each rank forms the statistics of the rows it owns (block partition, RowPartition), one
// allreduce sums them, and every rank must then hold the serial value and global gradients, and
// its own rows' latent gradients, to 1e-9 relative. Sizes (N = 600, D = 20, M = 30) where a
// different summation order would show. The minibatch form is checked the same way: a batch
// spread over the ranks, its reduced statistics scaled by N/B.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/objectives/sparse_gplvm.hpp"
#include "gplvm/objectives/uncollapsed_bound.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "support/quadrature_psi_kernel.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::random_normal;

constexpr Index kRows = 600, kOutputs = 20, kInducing = 30;
constexpr double kTolerance = 1e-9;

// A 6 x 5 grid over the latents' bulk, spaced about one lengthscale apart: K_ZZ well enough
// conditioned that 1e-9 measures the reduction, not the amplification of rounding by K_ZZ^{-1}.
Matrix inducing_grid() {
  Matrix Z(kInducing, 2);
  for (Index i = 0; i < kInducing; ++i) {
    Z(i, 0) = -2.0 + 0.8 * static_cast<double>(i % 6);
    Z(i, 1) = -2.0 + 1.0 * static_cast<double>(i / 6);
  }
  return Z;
}

struct Shared {
  testing::GpProblem gp = testing::sample_gp_problem(EqArdKernel{1.2, (Vector(2) << 0.8, 1.1).finished()},
                                                     0.1, kRows, kOutputs, 1);
  Matrix Z = inducing_grid();
  Matrix variance = 0.05 * (0.5 * random_normal(kRows, 2, 3)).array().exp();
};

const Shared& problem() {
  static const Shared p;
  return p;
}

struct Rows {
  Index begin, count;
};
Rows my_rows(const Communicator& comm, Index n) {
  const RowPartition partition(static_cast<std::uint64_t>(n), comm.size());
  return {static_cast<Index>(partition.begin(comm.rank())), static_cast<Index>(partition.count(comm.rank()))};
}

double relative(double a, double b) {
  return std::abs(a - b) / std::abs(b);
}
double relative(const Matrix& a, const Matrix& b) {
  return (a - b).norm() / b.norm();
}

void expect_same(const SparseGplvmGradient& distributed, const SparseGplvmGradient& serial,
                 const Rows& rows) {
  EXPECT_LT(relative(distributed.value, serial.value), kTolerance);
  EXPECT_LT(relative(distributed.d_log_noise, serial.d_log_noise), kTolerance);
  EXPECT_LT(relative(distributed.d_inducing, serial.d_inducing), kTolerance);
  EXPECT_LT(relative(distributed.d_kernel, serial.d_kernel), kTolerance);
  // Local rows against the same rows of the serial gradient, on that gradient's scale.
  EXPECT_LE((distributed.d_latents - serial.d_latents.middleRows(rows.begin, rows.count)).norm(),
            kTolerance * serial.d_latents.norm());
  if (serial.d_variance.size() > 0) {
    EXPECT_LE((distributed.d_variance - serial.d_variance.middleRows(rows.begin, rows.count)).norm(),
              kTolerance * serial.d_variance.norm());
  }
}

TEST(DistributedSparseGplvm, PointLatentsMatchSerial) {
  const Communicator comm, self(MPI_COMM_SELF);
  const Shared& p = problem();
  const Rows rows = my_rows(comm, kRows);
  const SparseGplvmGradient serial = sparse_gplvm_bound(self, p.gp.kernel, p.gp.noise, p.Z, p.gp.X, p.gp.Y);
  const SparseGplvmGradient distributed =
      sparse_gplvm_bound(comm, p.gp.kernel, p.gp.noise, p.Z, p.gp.X.middleRows(rows.begin, rows.count),
                         p.gp.Y.middleRows(rows.begin, rows.count));
  expect_same(distributed, serial, rows);
}

TEST(DistributedSparseGplvm, GaussianLatentsMatchSerial) {
  const Communicator comm, self(MPI_COMM_SELF);
  const Shared& p = problem();
  const testing::QuadraturePsiKernel kernel(p.gp.kernel, 4);
  const Rows rows = my_rows(comm, kRows);
  const SparseGplvmGradient serial =
      bayesian_gplvm_bound(self, kernel, p.gp.noise, p.Z, p.gp.X, p.variance, p.gp.Y);
  const SparseGplvmGradient distributed = bayesian_gplvm_bound(
      comm, kernel, p.gp.noise, p.Z, p.gp.X.middleRows(rows.begin, rows.count),
      p.variance.middleRows(rows.begin, rows.count), p.gp.Y.middleRows(rows.begin, rows.count));
  expect_same(distributed, serial, rows);
}

// The uncollapsed bound of one batch (rows [first, first + B)), its rows split over the ranks of
// `comm`: value and gradients, the global ones reduced.
struct BatchResult {
  UncollapsedBound bound;
  SharedGradient shared;
  Matrix d_latents;  // this rank's rows of the batch
};
BatchResult batch_bound(const Communicator& comm, const Shared& p, const InducingPosterior& q, Index first,
                        Index batch) {
  const Rows local = my_rows(comm, batch);
  const auto X = p.gp.X.middleRows(first + local.begin, local.count);
  const auto Y = p.gp.Y.middleRows(first + local.begin, local.count);
  PsiStatistics psi;
  SparseStatistics s = point_rows_statistics(p.gp.kernel, p.Z, X, Y, psi);
  s.allreduce(comm);
  const double scale = static_cast<double>(kRows) / batch;
  s.scale(scale);
  Matrix K;
  p.gp.kernel.cross(p.Z, p.Z, K);
  BatchResult r{uncollapsed_bound(s, K, p.gp.noise, q),
                SharedGradient::zero(kInducing, 2, p.gp.kernel.num_hyperparameters()),
                Matrix::Zero(local.count, 2)};
  point_rows_backward(p.gp.kernel, p.Z, X, Y, psi, r.bound.adjoint.scaled(scale), r.d_latents, r.shared);
  r.shared.allreduce(comm);
  inducing_kernel_backward(p.gp.kernel, p.Z, K, r.bound.d_inducing_kernel, r.shared);
  return r;
}

TEST(DistributedSparseGplvm, MinibatchUncollapsedBoundMatchesSerial) {
  const Communicator comm, self(MPI_COMM_SELF);
  const Shared& p = problem();
  // Near the optimum, as in training: far from it the bound is a difference of huge terms.
  Matrix K;
  p.gp.kernel.cross(p.Z, p.Z, K);
  PsiStatistics psi;
  const SparseStatistics full = point_rows_statistics(p.gp.kernel, p.Z, p.gp.X, p.gp.Y, psi);
  InducingPosterior q = optimal_inducing_posterior(full, K, p.gp.noise);
  q.mean += 0.05 * random_normal(kInducing, kOutputs, 4);
  const Index first = 100, batch = 250;
  const BatchResult serial = batch_bound(self, p, q, first, batch);
  const BatchResult distributed = batch_bound(comm, p, q, first, batch);
  const Rows local = my_rows(comm, batch);
  EXPECT_LT(relative(distributed.bound.value, serial.bound.value), kTolerance);
  EXPECT_LT(relative(distributed.bound.d_log_noise, serial.bound.d_log_noise), kTolerance);
  EXPECT_LT(relative(distributed.bound.d_mean, serial.bound.d_mean), kTolerance);
  EXPECT_LT(relative(distributed.bound.d_scale, serial.bound.d_scale), kTolerance);
  EXPECT_LT(relative(distributed.shared.d_inducing, serial.shared.d_inducing), kTolerance);
  EXPECT_LT(relative(distributed.shared.d_kernel, serial.shared.d_kernel), kTolerance);
  EXPECT_LE((distributed.d_latents - serial.d_latents.middleRows(local.begin, local.count)).norm(),
            kTolerance * serial.d_latents.norm());
}

TEST(DistributedSparseGplvm, OneAllreduceOfTheStatisticsSize) {
  const Communicator comm;
  const Shared& p = problem();
  const Rows rows = my_rows(comm, kRows);
  PsiStatistics psi;
  SparseStatistics s = point_rows_statistics(p.gp.kernel, p.Z, p.gp.X.middleRows(rows.begin, rows.count),
                                             p.gp.Y.middleRows(rows.begin, rows.count), psi);
  EXPECT_EQ(s.packed_size(), kInducing * kInducing + kInducing * kOutputs + 4);
  Communicator counted;
  counted.reset_byte_count();
  s.allreduce(counted);
  EXPECT_EQ(counted.bytes_sent(), comm.size() == 1 ? 0u : sizeof(double) * s.packed_size());
  EXPECT_EQ(s.num_rows, static_cast<double>(kRows));
}

}  // namespace
}  // namespace gplvm

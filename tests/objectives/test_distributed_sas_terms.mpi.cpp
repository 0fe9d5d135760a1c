// The data-parallel decomposition of the SAS objective, run under mpirun at 1-4 ranks: each rank
// evaluates only the remainder rows it owns (block partition of the N data rows, so some ranks own
// none of a batch) and whitens only its slice of the active columns (D = 6 over up to 4 ranks, and
// D = 2, where some ranks get no column), the slices are gathered, the partials are allreduced
// once, and every rank must then hold the serial objective and gradients.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/model/gp_prior_sample.hpp"
#include "gplvm/objectives/sas.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

TEST(DistributedSas, ReducedPartialsEqualSerialObjectiveAndGradients) {
  const Communicator comm;
  for (const Index d : {6, 2}) {
    const Index n = 53, a = 9;
    const Matrix X = testing::random_normal(n, 2, 1);
    const EqArdKernel kernel(0.8, (Vector(2) << 0.7, 1.1).finished());
    const RowMatrix Y = sample_gp_outputs(kernel, 0.1, X, d, CounterRng(2), 0);
    const BatchSchedule schedule(n, 25, 3);
    const RowPartition partition(n, comm.size());
    for (std::uint64_t b = 0; b < schedule.batches_per_epoch(); ++b) {
      const auto rows = schedule.batch_rows(0, b);
      const Index r = static_cast<Index>(rows.size()) - a;
      Matrix XA(a, 2), XR(r, 2), XRlocal(0, 2);
      RowMatrix YA(a, d), YR(r, d), YRlocal(0, d);
      std::vector<Index> local_positions;
      for (Index i = 0; i < static_cast<Index>(rows.size()); ++i) {
        if (i < a) {
          XA.row(i) = X.row(rows[i]);
          YA.row(i) = Y.row(rows[i]);
          continue;
        }
        XR.row(i - a) = X.row(rows[i]);
        YR.row(i - a) = Y.row(rows[i]);
        if (partition.owner(rows[i]) == comm.rank()) local_positions.push_back(i - a);
      }
      XRlocal.resize(local_positions.size(), 2);
      YRlocal.resize(local_positions.size(), d);
      for (size_t k = 0; k < local_positions.size(); ++k) {
        XRlocal.row(k) = XR.row(local_positions[k]);
        YRlocal.row(k) = YR.row(local_positions[k]);
      }
      const double w = 2.0;
      SasActiveSet active = sas_active_factor(kernel, 0.1, XA, d);
      const RowPartition columns(static_cast<std::uint64_t>(d), comm.size());
      const Matrix beta_slice =
          whiten_active_columns(active, YA.middleCols(static_cast<Index>(columns.begin(comm.rank())),
                                                      static_cast<Index>(columns.count(comm.rank()))));
      active.whitened_data = comm.allgather_columns(beta_slice);
      SasPartials partials = sas_remainder_terms(kernel, 0.1, active, XA, XRlocal, YRlocal, w);
      partials.add_active_data_fit(beta_slice);
      std::vector<double> buffer(partials.packed_size());
      partials.pack(buffer.data());
      comm.allreduce_sum(buffer.data(), static_cast<Index>(buffer.size()));
      partials.unpack(buffer.data());
      const GpGradient distributed = sas_combine(kernel, 0.1, active, XA, partials);
      const SasGradient serial = sas_objective(kernel, 0.1, XA, YA, XR, YR, w);

      EXPECT_NEAR(distributed.value, serial.value, 1e-12 * std::abs(serial.value));
      EXPECT_LT((distributed.d_latents - serial.d_latents_active).norm(),
                1e-11 * serial.d_latents_active.norm());
      EXPECT_LT((distributed.d_kernel - serial.d_kernel).norm(), 1e-11 * serial.d_kernel.norm());
      EXPECT_NEAR(distributed.d_log_noise, serial.d_log_noise, 1e-11 * std::abs(serial.d_log_noise));
      for (size_t k = 0; k < local_positions.size(); ++k)
        EXPECT_LT(
            (partials.d_latents_remainder.row(k) - serial.d_latents_remainder.row(local_positions[k])).norm(),
            1e-12 * (1 + serial.d_latents_remainder.norm()));
    }
  }
}

TEST(Communicator, AllgatherRowsHandlesUnevenEmptyAndStridedBlocks) {
  const Communicator comm;
  // Rank r contributes r rows (rank 0 none), each row filled with 10 r + its column: once as a
  // whole matrix (sent in place) and once as a column block of a wider one (rows not adjacent).
  RowMatrix wide(comm.rank(), 5);
  for (Index i = 0; i < wide.rows(); ++i)
    for (Index j = 0; j < wide.cols(); ++j) wide(i, j) = 10.0 * comm.rank() + j;
  const RowMatrix local = wide.leftCols(3);
  // The counts learnt by the gather, and given (rank r: r rows).
  std::vector<int> counts(comm.size());
  for (int r = 0; r < comm.size(); ++r) counts[r] = r;
  for (const DataRef& block : {DataRef(local), DataRef(wide.leftCols(3))})
    for (const RowMatrix& all : {comm.allgather_rows(block), comm.allgather_rows(block, counts)}) {
      ASSERT_EQ(all.rows(), comm.size() * (comm.size() - 1) / 2);
      ASSERT_EQ(all.cols(), 3);
      Index row = 0;
      for (int r = 0; r < comm.size(); ++r)
        for (int k = 0; k < r; ++k, ++row)
          for (Index j = 0; j < 3; ++j) EXPECT_EQ(all(row, j), 10.0 * r + j);
    }
  // Given counts that disagree with the block are refused before any communication.
  counts[comm.rank()] += 1;
  EXPECT_THROW(comm.allgather_rows(DataRef(local), counts), InputError);
}

TEST(Communicator, AllgatherColumnsHandlesUnevenEmptyAndStridedBlocks) {
  const Communicator comm;
  // Rank r contributes r columns (rank 0 none), each filled with 10 r + its row, taken from a
  // wider matrix so that the block has an outer stride.
  Matrix wide(4, comm.rank() + 2);
  for (Index j = 0; j < wide.cols(); ++j)
    for (Index i = 0; i < 4; ++i) wide(i, j) = 10.0 * comm.rank() + i;
  std::vector<int> counts(comm.size());
  for (int r = 0; r < comm.size(); ++r) counts[r] = r;
  const auto block = wide.middleCols(1, comm.rank());
  for (const Matrix& all : {comm.allgather_columns(block), comm.allgather_columns(block, counts)}) {
    ASSERT_EQ(all.rows(), 4);
    ASSERT_EQ(all.cols(), comm.size() * (comm.size() - 1) / 2);
    Index col = 0;
    for (int r = 0; r < comm.size(); ++r)
      for (int k = 0; k < r; ++k, ++col)
        for (Index i = 0; i < 4; ++i) EXPECT_EQ(all(i, col), 10.0 * r + i);
  }
  counts.pop_back();
  EXPECT_THROW(comm.allgather_columns(block, counts), InputError);
}

TEST(Communicator, AllreduceSumsAndCountsBytes) {
  Communicator comm;
  comm.reset_byte_count();
  Vector v = Vector::Constant(5, comm.rank() + 1.0);
  comm.allreduce_sum(v.data(), v.size());
  EXPECT_EQ(v[3], comm.size() * (comm.size() + 1) / 2.0);
  EXPECT_EQ(comm.bytes_sent(), comm.size() > 1 ? 5 * sizeof(double) : 0u);
  // fp32 gradients are summed as floats: half the bytes.
  VectorT<float> f = VectorT<float>::Constant(4, comm.rank() + 0.5f);
  comm.allreduce_sum(f.data(), f.size());
  EXPECT_EQ(f[2], comm.size() * comm.size() / 2.0f);
  EXPECT_EQ(comm.bytes_sent(), comm.size() > 1 ? 5 * sizeof(double) + 4 * sizeof(float) : 0u);
  EXPECT_EQ(comm.allreduce_max(static_cast<double>(comm.rank())), comm.size() - 1.0);
}

TEST(RowPartition, OwnersAgreeWithBlocksForAnyRankCount) {
  for (int p = 1; p <= 7; ++p)
    for (std::uint64_t n : {1ull, 5ull, 53ull, 1000ull}) {
      const RowPartition part(n, p);
      EXPECT_EQ(part.begin(p), n);
      for (int r = 0; r < p; ++r)
        for (std::uint64_t row = part.begin(r); row < part.begin(r + 1); ++row) ASSERT_EQ(part.owner(row), r);
    }
}

TEST(RowPartition, OwnerOfARowPastTheEndIsAnInputErrorNamingIt) {
  const RowPartition part(53, 3);
  try {
    part.owner(53);
    FAIL() << "row 53 of 53 was given an owner";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "row");
    EXPECT_EQ(e.context().value, "53");
  }
}

}  // namespace
}  // namespace gplvm

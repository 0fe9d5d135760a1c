// sum_global_blocks (models/global_row_blocks.hpp): the sum of per-block partials over fixed
// blocks of global rows, grouped, each group exact, must give the one-rank result to the last bit
// at 1-4 ranks, visit every block once, and equal the sum of the terms to the rounding of adding the
// group sums. N = 3,001 rows make 12 blocks of 256 (the last short) whose layout is cut by every
// rank boundary at 2-4 ranks; one, two and twelve blocks per group (12, 6 and 1 groups). Terms of
// magnitudes 1e-8 to 1e8 make an ordinary sum's bits depend on its order.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/models/global_row_blocks.hpp"
#include "gplvm/parallel/row_redistribution.hpp"

namespace gplvm {
namespace {

constexpr std::uint64_t kRows = 3001;
constexpr Index kValues = 4;  // per row: three terms and a count

// Row n's terms, keyed by the global row only.
RowMatrix global_terms() {
  const CounterRng rng(11);
  RowMatrix terms(static_cast<Index>(kRows), kValues);
  for (Index n = 0; n < terms.rows(); ++n) {
    for (Index k = 0; k + 1 < kValues; ++k) {
      const auto key = static_cast<std::uint64_t>(n * kValues + k);
      terms(n, k) = rng.normal(RngPurpose::test, 0, 0, key) *
                    std::pow(10.0, 16.0 * rng.uniform(RngPurpose::test, 0, 1, key) - 8.0);
    }
    terms(n, kValues - 1) = 1.0;
  }
  return terms;
}

// The terms' sum through sum_global_blocks on comm, each block's partial its rows added in order.
Vector block_sum(const Communicator& comm, const RowMatrix& terms, Index blocks_per_group) {
  const RowPartition partition(kRows, comm.size());
  const GlobalRowBlocks blocks = global_row_blocks(partition);
  const RowMatrix local = terms.middleRows(static_cast<Index>(partition.begin(comm.rank())),
                                           static_cast<Index>(partition.count(comm.rank())));
  const RowMatrix rows =
      redistribute_rows(comm, DataRef(local), partition.begin(comm.rank()), kRows, blocks.begins);
  Vector total(kValues);
  sum_global_blocks(
      comm, blocks, kValues, blocks_per_group,
      [&](Index, Index first, Index n, double* partial) {
        Eigen::Map<Vector> out(partial, kValues);
        out.setZero();
        for (Index i = 0; i < n; ++i) out += rows.row(first + i).transpose();
      },
      total.data());
  return total;
}

class GlobalBlockSums : public ::testing::TestWithParam<Index> {};

TEST_P(GlobalBlockSums, SameBitsAsOneRankAndTheSumToRounding) {
  const Communicator comm;
  const RowMatrix terms = global_terms();
  const Vector mine = block_sum(comm, terms, GetParam());
  Vector reference(kValues);
  if (comm.is_root()) reference = block_sum(Communicator(MPI_COMM_SELF), terms, GetParam());
  comm.broadcast(reference.data(), kValues);
  for (Index k = 0; k < kValues; ++k)
    EXPECT_EQ(std::memcmp(&mine[k], &reference[k], sizeof(double)), 0)
        << "value " << k << ": " << mine[k] << " against " << reference[k] << " on one rank";
  EXPECT_EQ(mine[kValues - 1], static_cast<double>(kRows));  // every row once
  for (Index k = 0; k + 1 < kValues; ++k) {
    long double exact = 0, magnitude = 0;
    for (Index n = 0; n < terms.rows(); ++n) {
      exact += terms(n, k);
      magnitude += std::abs(terms(n, k));
    }
    // At most 12 group sums, each exact to 2^-120 of the largest term, then rounded once per addition.
    EXPECT_NEAR(mine[k], static_cast<double>(exact), 16 * 1.2e-16 * static_cast<double>(magnitude))
        << "value " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(BlocksPerGroup, GlobalBlockSums, ::testing::Values(Index{1}, Index{2}, Index{12}));

}  // namespace
}  // namespace gplvm

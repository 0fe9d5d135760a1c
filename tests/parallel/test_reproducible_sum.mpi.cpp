// reproducible_sum: the same bits whatever the rank count and whichever rank holds which block,
// and the exact sum of the blocks to within the documented bound (checked against Shewchuk's
// exact floating-point expansion sum, an independent algorithm).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/parallel/reproducible_sum.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {
namespace {

constexpr Index kBlocks = 37, kLength = 300;

// Block-major values with magnitudes over 16 decades and both signs, so that sums cancel.
std::vector<double> test_blocks() {
  const CounterRng rng(41);
  std::vector<double> v(static_cast<std::size_t>(kBlocks * kLength));
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double magnitude = std::pow(10.0, 16.0 * rng.uniform(RngPurpose::test, 0, 0, i) - 10.0);
    v[i] = (rng.uniform(RngPurpose::test, 1, 0, i) < 0.5 ? -magnitude : magnitude);
  }
  return v;
}

// Shewchuk's exact sum (Python's math.fsum): a non-overlapping expansion, rounded once.
double exact_sum(const std::vector<double>& terms) {
  std::vector<double> partials;
  for (double x : terms) {
    std::size_t used = 0;
    for (double y : partials) {
      if (std::abs(x) < std::abs(y)) std::swap(x, y);
      const double hi = x + y, lo = y - (hi - x);
      if (lo != 0.0) partials[used++] = lo;
      x = hi;
    }
    partials.resize(used);
    partials.push_back(x);
  }
  double sum = 0.0;
  for (auto it = partials.rbegin(); it != partials.rend(); ++it) sum += *it;
  return sum;
}

// This rank's blocks when the kBlocks are split over the ranks as rows are.
BlockPartials<double> my_blocks(const Communicator& comm, const std::vector<double>& all) {
  const RowPartition split(kBlocks, comm.size());
  return {all.data() + split.begin(comm.rank()) * kLength, static_cast<Index>(split.count(comm.rank())),
          kLength, kLength};
}

TEST(ReproducibleSum, SameBitsAtEveryRankCountAndExactToTheBound) {
  const Communicator comm;
  const std::vector<double> all = test_blocks();
  std::vector<double> sum(kLength), one_rank(kLength);
  reproducible_sum(comm, my_blocks(comm, all), sum.data());
  // The same blocks on one rank, in reverse order: order and holder do not matter.
  std::vector<double> reversed(all.size());
  for (Index b = 0; b < kBlocks; ++b)
    std::copy_n(all.data() + b * kLength, kLength, reversed.data() + (kBlocks - 1 - b) * kLength);
  reproducible_sum(Communicator(MPI_COMM_SELF),
                   BlockPartials<double>{reversed.data(), kBlocks, kLength, kLength}, one_rank.data());
  double largest = 0.0;
  for (double v : all) largest = std::max(largest, std::abs(v));
  const double dropped = kBlocks * std::ldexp(1.0, std::ilogb(largest) + 1 - 120);
  for (Index i = 0; i < kLength; ++i) {
    ASSERT_EQ(sum[i], one_rank[i]) << "value " << i << " at " << comm.size() << " ranks";
    std::vector<double> terms;
    for (Index b = 0; b < kBlocks; ++b) terms.push_back(all[b * kLength + i]);
    const double exact = exact_sum(terms);
    const double ulp =
        std::nextafter(std::abs(exact), std::numeric_limits<double>::infinity()) - std::abs(exact);
    EXPECT_LE(std::abs(sum[i] - exact), ulp + dropped) << "value " << i;
  }
}

// Blocks added one at a time with the grids fixed from a bound beforehand: the same bits at every
// rank count, and the exact sum to within the bound's dropped part.
TEST(ReproducibleAccumulator, StreamedBlocksGiveTheSameBitsAtEveryRankCountAndTheExactSum) {
  const Communicator comm;
  const std::vector<double> all = test_blocks();
  double largest = 0.0;
  for (double v : all) largest = std::max(largest, std::abs(v));
  const BlockPartials<double> mine = my_blocks(comm, all);
  ReproducibleAccumulator streamed(kLength, 2.0 * largest);  // a loose bound, as callers have
  for (Index b = 0; b < mine.num_blocks; ++b) streamed.add(mine.data + b * kLength);
  std::vector<double> sum(kLength), one_rank(kLength);
  streamed.sum(comm, sum.data());
  ReproducibleAccumulator reversed(kLength, 2.0 * largest);
  for (Index b = kBlocks - 1; b >= 0; --b) reversed.add(all.data() + b * kLength);
  reversed.sum(Communicator(MPI_COMM_SELF), one_rank.data());
  const double dropped = kBlocks * std::ldexp(1.0, std::ilogb(2.0 * largest) + 1 - 120);
  for (Index i = 0; i < kLength; ++i) {
    ASSERT_EQ(sum[i], one_rank[i]) << "value " << i << " at " << comm.size() << " ranks";
    std::vector<double> terms;
    for (Index b = 0; b < kBlocks; ++b) terms.push_back(all[b * kLength + i]);
    const double exact = exact_sum(terms);
    const double ulp =
        std::nextafter(std::abs(exact), std::numeric_limits<double>::infinity()) - std::abs(exact);
    EXPECT_LE(std::abs(sum[i] - exact), ulp + dropped) << "value " << i;
  }
}

TEST(ReproducibleSum, SlicesHoldTheSameBitsAsTheAllreduce) {
  const Communicator comm;
  const std::vector<double> all = test_blocks();
  std::vector<double> full(kLength), sliced(kLength);
  reproducible_sum(comm, my_blocks(comm, all), full.data());
  const RowPartition split(kLength, comm.size());
  std::vector<int> counts;
  for (int r = 0; r < comm.size(); ++r) counts.push_back(static_cast<int>(split.count(r)));
  reproducible_sum(comm, my_blocks(comm, all), sliced.data(), &counts);
  for (auto i = static_cast<Index>(split.begin(comm.rank()));
       i < static_cast<Index>(split.begin(comm.rank() + 1)); ++i)
    EXPECT_EQ(sliced[i], full[i]) << i;
}

TEST(ReproducibleSum, FloatsZerosAndNonFiniteTerms) {
  const Communicator comm;
  std::vector<float> ones(kLength, 0.1f), out(kLength);
  // Every rank adds one block of 0.1f: the sum is the rank count times 0.1f, rounded once.
  reproducible_sum(comm, BlockPartials<float>{ones.data(), 1, kLength, kLength}, out.data());
  EXPECT_EQ(out[0], static_cast<float>(comm.size() * static_cast<double>(0.1f)));
  std::vector<double> zeros(kLength, 0.0), sum(kLength, 1.0);
  reproducible_sum(comm, BlockPartials<double>{zeros.data(), 1, kLength, kLength}, sum.data());
  EXPECT_EQ(sum[5], 0.0);
  // A NaN on the last rank reaches every rank's sum.
  if (comm.rank() == comm.size() - 1) zeros[7] = std::numeric_limits<double>::quiet_NaN();
  reproducible_sum(comm, BlockPartials<double>{zeros.data(), 1, kLength, kLength}, sum.data());
  EXPECT_TRUE(std::isnan(sum[7]));
  EXPECT_EQ(sum[6], 0.0);
}

}  // namespace
}  // namespace gplvm

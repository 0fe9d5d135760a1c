// Distance ranks (graph/distance_ranks.hpp) at 1-4 ranks, n = 97 (uneven splits), against brute
// force: every row's targets (its 6 nearest, 3 far rows, and the last row) placed by sorting all
// other rows by (squared distance from exact differences, index). With duplicate rows the ties are
// broken by index.
#include <gtest/gtest.h>

#include <algorithm>

#include "gplvm/graph/distance_ranks.hpp"
#include "graph/graph_test_data.hpp"

namespace gplvm {
namespace {

constexpr Index kN = 97;

IndexMatrix targets_of(Index n, Index first, Index rows) {
  IndexMatrix targets(rows, 10);
  for (Index i = 0; i < rows; ++i) {
    const Index g = first + i;
    for (Index t = 0; t < 10; ++t) {
      Index j = (g + 1 + 7 * t) % n;
      if (t == 9) j = g == n - 1 ? 0 : n - 1;
      targets(i, t) = j;
    }
  }
  return targets;
}

// The rank of j from i: 1 + the rows before it in the (squared distance, index) order.
Index brute_force_rank(const RowMatrix& all, Index i, Index j) {
  std::vector<std::pair<double, Index>> order;
  for (Index l = 0; l < all.rows(); ++l)
    if (l != i) order.push_back({(all.row(i) - all.row(l)).squaredNorm(), l});
  std::sort(order.begin(), order.end());
  for (std::size_t at = 0; at < order.size(); ++at)
    if (order[at].second == j) return static_cast<Index>(at) + 1;
  return -1;
}

void expect_brute_force_ranks(const RowMatrix& all) {
  const Communicator comm;
  const RowPartition partition(kN, comm.size());
  const Index first = static_cast<Index>(partition.begin(comm.rank()));
  const RowMatrix local = testing::local_block(all, comm);
  const IndexMatrix targets = targets_of(kN, first, local.rows());
  const IndexMatrix ranks = distance_ranks(local, targets, comm);
  Index wrong = 0;
  for (Index i = 0; i < local.rows(); ++i)
    for (Index t = 0; t < targets.cols(); ++t)
      wrong += ranks(i, t) != brute_force_rank(all, first + i, targets(i, t));
  EXPECT_EQ(comm.allreduce_sum(static_cast<std::int64_t>(wrong)), 0);
}

TEST(DistanceRanks, EqualBruteForce) {
  expect_brute_force_ranks(testing::gaussian_rows(kN, 4, 5));
}

TEST(DistanceRanks, BreakTiesOfDuplicateRowsByIndex) {
  RowMatrix all = testing::gaussian_rows(kN, 3, 6);
  for (Index i = 0; i + 1 < kN; i += 5) all.row(i + 1) = all.row(i);  // exact duplicates: distance 0
  expect_brute_force_ranks(all);
}

}  // namespace
}  // namespace gplvm

// batch_workers: the balanced assignment of batch rows to ranks, over real schedules at 1-16 ranks
// (N not divisible by the rank count, batches of B to 2B - 1 rows).
#include <gtest/gtest.h>

#include <algorithm>

#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/train/batch_schedule.hpp"
#include "gplvm/models/batch_workers.hpp"

namespace gplvm {
namespace {

constexpr std::uint64_t kRows = 1001;

TEST(BatchWorkers, UnbalancedEveryRowGoesToItsOwner) {
  const BatchSchedule schedule(kRows, 64, 3);
  for (int ranks : {1, 3, 16}) {
    const RowPartition partition(kRows, ranks);
    const auto rows = schedule.batch_rows(0, 1);
    const std::vector<int> worker = batch_workers(rows, 10, partition, false);
    for (std::size_t p = 0; p < rows.size(); ++p) EXPECT_EQ(worker[p], partition.owner(rows[p]));
  }
}

// For each class of positions (active [0, A), remainder [A, B)): every rank works on exactly its
// RowPartition share, every owner keeps min(owned, share) of its rows (its first ones), and so the
// rows that move are exactly the owners' surpluses.
TEST(BatchWorkers, BalancedSharesAreEvenAndOwnersKeepWhatTheirShareAllows) {
  const BatchSchedule schedule(kRows, 64, 5);
  for (int ranks = 1; ranks <= 16; ++ranks) {
    const RowPartition partition(kRows, ranks);
    for (std::uint64_t batch = 0; batch < 6; ++batch) {
      const auto rows = schedule.batch_rows(batch % 2, batch);
      for (Index active : {Index{1}, Index{7}, Index{40}}) {
        const std::vector<int> worker = batch_workers(rows, active, partition, true);
        ASSERT_EQ(worker.size(), rows.size());
        const Index b = static_cast<Index>(rows.size());
        for (const auto& [first, last] : {std::pair{Index{0}, active}, std::pair{active, b}}) {
          const RowPartition shares(static_cast<std::uint64_t>(last - first), ranks);
          std::vector<Index> works(ranks, 0), owns(ranks, 0), keeps(ranks, 0);
          for (Index p = first; p < last; ++p) {
            ASSERT_GE(worker[p], 0);
            ASSERT_LT(worker[p], ranks);
            const int owner = partition.owner(rows[p]);
            ++works[worker[p]];
            // An owner keeps a prefix of its rows: once one has moved, no later one stays.
            if (worker[p] == owner) {
              EXPECT_EQ(keeps[owner], owns[owner]) << "rank " << owner << " kept a row after moving one";
              ++keeps[owner];
            }
            ++owns[owner];
          }
          for (int r = 0; r < ranks; ++r) {
            const Index share = static_cast<Index>(shares.count(r));
            EXPECT_EQ(works[r], share)
                << ranks << " ranks, rank " << r << ", positions " << first << ".." << last;
            EXPECT_EQ(keeps[r], std::min(owns[r], share)) << ranks << " ranks, rank " << r;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace gplvm

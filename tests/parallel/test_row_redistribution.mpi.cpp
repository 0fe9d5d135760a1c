// rebalance_rows at 1-4 ranks: uneven, empty and shifted source ranges end in the balanced layout
// with every row intact.
#include <gtest/gtest.h>

#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/parallel/row_redistribution.hpp"

namespace gplvm {
namespace {

TEST(RowRedistribution, UnevenRangesBecomeBalancedBlocks) {
  const Communicator comm;
  // Rank r holds 3r rows (rank 0 none): the sequence has 3 P (P - 1) / 2 rows.
  const std::uint64_t total = 3ull * comm.size() * (comm.size() - 1) / 2;
  const std::uint64_t offset = 3ull * comm.rank() * (comm.rank() - 1) / 2;
  RowMatrix local(3 * comm.rank(), 2);
  for (Index i = 0; i < local.rows(); ++i) local.row(i) << double(offset + i), -double(offset + i);
  if (total == 0) GTEST_SKIP() << "one rank holds nothing to move";
  const RowMatrix out = rebalance_rows(comm, local, offset, total);
  const RowPartition target(total, comm.size());
  ASSERT_EQ(static_cast<std::uint64_t>(out.rows()), target.count(comm.rank()));
  for (Index i = 0; i < out.rows(); ++i) {
    EXPECT_EQ(out(i, 0), double(target.begin(comm.rank()) + i));
    EXPECT_EQ(out(i, 1), -double(target.begin(comm.rank()) + i));
  }
}

}  // namespace
}  // namespace gplvm

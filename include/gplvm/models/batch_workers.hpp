#pragma once
// Which rank works on each row of a batch. The rows of a batch are a random draw, so the number a
// rank owns is hypergeometric, and the step waits for the rank with the most: at B = 1024 that
// rank has 2.5% more than an even share at 2 ranks and 22% more at 16 (bench/batch_balance.py). Balanced, the
// active positions [0, A) and the remainder positions [A, B) are each split as evenly as RowPartition splits
// rows, every owner keeping as many of its own rows (its first ones) as its share allows, so the fewest rows
// move; the surplus rows go, in position order, to the ranks short of their share, in rank order. Every rank
// computes the same assignment from (batch, partition) alone, so nothing is exchanged but the rows.
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

// worker[p] for every batch position p: its owner when balance is false, else the balanced
// assignment above.
std::vector<int> batch_workers(const std::vector<std::uint64_t>& batch_rows, Index num_active,
                               const RowPartition& partition, bool balance);

}  // namespace gplvm

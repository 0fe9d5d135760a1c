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

// Reproducible sums over ranks (parallel/reproducible_sum.hpp) need every partial sum formed over
// the same rows at every rank count. The batch is cut into row blocks: positions [0, A) and [A, B)
// each into blocks of kRowsPerBatchBlock consecutive positions, the last of each range shorter.
constexpr Index kRowsPerBatchBlock = 64;
// The block of position p (blocks numbered in position order).
Index batch_block_of(Index position, Index num_active);
// worker[p] when whole blocks are assigned: each range's blocks are split over the ranks as
// RowPartition splits rows, the active blocks' extra ones to the first ranks and the remainder
// blocks' to the last, so that no rank takes both.
std::vector<int> batch_block_workers(Index batch_size, Index num_active, int ranks);
// The row counts of the blocks `rank` works on under such an assignment, in position order.
std::vector<Index> batch_block_rows(const std::vector<int>& worker, Index num_active, int rank);

}  // namespace gplvm

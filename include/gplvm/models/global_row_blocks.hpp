#pragma once
// Fixed blocks of global rows, for sums over a whole data set whose bits do not depend on the rank
// count (train.reproducible; parallel/reproducible_sum.hpp): blocks of rows_per_block consecutive
// global rows (256, more when N would give more than the 4,096 blocks one exact sum may add), and
// the layout in which every rank holds whole blocks, each partition boundary rounded up to a block
// boundary. redistribute_rows (parallel/row_redistribution.hpp) moves rows between the partition
// and this layout: only the rows of the blocks cut by a rank boundary, at most one partial block
// per boundary.
#include <cstdint>
#include <functional>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

struct GlobalRowBlocks {
  Index rows_per_block = 0;
  std::vector<std::uint64_t> begins;  // P + 1 values: rank r holds global rows [begins[r], begins[r + 1])

  Index num_blocks() const;                       // over every rank
  Index first_block(int rank) const;              // the global index of the rank's first block
  std::vector<Index> block_rows(int rank) const;  // the row counts of the rank's blocks, in order
};

GlobalRowBlocks global_row_blocks(const RowPartition& partition);

// One block's partial sum: `length` values written to `partial` for this rank's block `block`
// (its index among the rank's blocks), which holds `rows` rows from `first_row` of the rank's
// block layout.
using GlobalBlockPartial = std::function<void(Index block, Index first_row, Index rows, double* partial)>;

// Collective: total = the sum of every rank's blocks' partials, the same bits at any rank count.
// The global blocks are dealt into G = ceil(blocks / blocks_per_group) groups (block b to group
// b mod G, so each group spans the whole row range and every rank works on each group); each group
// is summed exactly (parallel/reproducible_sum.hpp) and the group sums are added in group order,
// so a rank holds at most blocks_per_group partials at once. The partials of a group are formed inside
// Communicator::all_or_none: a failure on one rank is thrown on every rank before the group's sum.
void sum_global_blocks(const Communicator& comm, const GlobalRowBlocks& blocks, Index length,
                       Index blocks_per_group, const GlobalBlockPartial& block_partial, double* total);

}  // namespace gplvm

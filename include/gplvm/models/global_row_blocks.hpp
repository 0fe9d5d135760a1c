#pragma once
// Fixed blocks of global rows, for sums over a whole data set whose bits do not depend on the rank
// count (train.reproducible; parallel/reproducible_sum.hpp): blocks of rows_per_block consecutive
// global rows (256, more when N would give more than the 4,096 blocks one exact sum may add), and
// the layout in which every rank holds whole blocks, each partition boundary rounded up to a block
// boundary. redistribute_rows (parallel/row_redistribution.hpp) moves rows between the partition
// and this layout: only the rows of the blocks cut by a rank boundary, at most one partial block
// per boundary.
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"
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

}  // namespace gplvm

#include "gplvm/models/global_row_blocks.hpp"

#include <algorithm>

namespace gplvm {
namespace {

// 256 rows: the exact sum's per-block cost (about 12 operations per summed value) is then small
// next to the block's products; more when N would give more than 4,096 blocks.
Index rows_per_block_for(Index n) {
  constexpr Index kRows = 256, kMaxBlocks = 4096;
  return std::max(kRows, (n + kMaxBlocks - 1) / kMaxBlocks);
}

}  // namespace

Index GlobalRowBlocks::num_blocks() const {
  return static_cast<Index>((begins.back() + rows_per_block - 1) / rows_per_block);
}

Index GlobalRowBlocks::first_block(int rank) const {
  return static_cast<Index>(begins[static_cast<std::size_t>(rank)] / rows_per_block);
}

std::vector<Index> GlobalRowBlocks::block_rows(int rank) const {
  const auto r = static_cast<std::size_t>(rank);
  std::vector<Index> rows;
  for (std::uint64_t first = begins[r]; first < begins[r + 1]; first += rows_per_block)
    rows.push_back(static_cast<Index>(std::min<std::uint64_t>(rows_per_block, begins[r + 1] - first)));
  return rows;
}

GlobalRowBlocks global_row_blocks(const RowPartition& partition) {
  GlobalRowBlocks blocks;
  blocks.rows_per_block = rows_per_block_for(static_cast<Index>(partition.num_rows()));
  const auto b = static_cast<std::uint64_t>(blocks.rows_per_block);
  for (int r = 0; r <= partition.num_ranks(); ++r)
    blocks.begins.push_back(std::min(partition.num_rows(), (partition.begin(r) + b - 1) / b * b));
  return blocks;
}

}  // namespace gplvm

#include "gplvm/models/global_row_blocks.hpp"

#include <algorithm>

#include "gplvm/parallel/reproducible_sum.hpp"

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

void sum_global_blocks(const Communicator& comm, const GlobalRowBlocks& blocks, Index length,
                       Index blocks_per_group, const GlobalBlockPartial& block_partial, double* total) {
  const int me = comm.rank();
  const std::vector<Index> block_rows = blocks.block_rows(me);
  const Index first_block = blocks.first_block(me), mine = static_cast<Index>(block_rows.size());
  std::fill_n(total, length, 0.0);
  Matrix partials(length, blocks_per_group);
  Vector group_sum(length);
  Index next = 0, next_row = 0;  // this rank's next block and its first row
  for (Index group = 0; group * blocks_per_group < blocks.num_blocks(); ++group) {
    const Index group_end = (group + 1) * blocks_per_group;
    Index held = 0;
    comm.all_or_none([&] {
      for (; next < mine && first_block + next < group_end; ++next, ++held) {
        const Index n = block_rows[static_cast<std::size_t>(next)];
        block_partial(next, next_row, n, partials.col(held).data());
        next_row += n;
      }
    });
    reproducible_sum(comm, BlockPartials<double>{partials.data(), held, length, length}, group_sum.data());
    for (Index i = 0; i < length; ++i) total[i] += group_sum[i];
  }
}

}  // namespace gplvm

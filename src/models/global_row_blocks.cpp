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
  const std::vector<Index> block_rows = blocks.block_rows(comm.rank());
  const Index first_block = blocks.first_block(comm.rank()), mine = static_cast<Index>(block_rows.size());
  std::vector<Index> first_row(static_cast<std::size_t>(mine) + 1, 0);
  for (Index j = 0; j < mine; ++j)
    first_row[static_cast<std::size_t>(j) + 1] =
        first_row[static_cast<std::size_t>(j)] + block_rows[static_cast<std::size_t>(j)];
  // Group g holds the global blocks g, g + G, g + 2G, ... (G groups): spread over the rows, so that
  // every rank has a share of each group's work and none waits while another forms a whole group.
  const Index groups = (blocks.num_blocks() + blocks_per_group - 1) / blocks_per_group;
  std::fill_n(total, length, 0.0);
  Matrix partials(length, blocks_per_group);
  Vector group_sum(length);
  for (Index group = 0; group < groups; ++group) {
    Index held = 0;
    comm.all_or_none([&] {
      // This rank's first block in the group, then every G-th.
      for (Index j = (group - first_block % groups + groups) % groups; j < mine; j += groups, ++held) {
        const auto s = static_cast<std::size_t>(j);
        block_partial(j, first_row[s], block_rows[s], partials.col(held).data());
      }
    });
    reproducible_sum(comm, BlockPartials<double>{partials.data(), held, length, length}, group_sum.data());
    for (Index i = 0; i < length; ++i) total[i] += group_sum[i];
  }
}

}  // namespace gplvm

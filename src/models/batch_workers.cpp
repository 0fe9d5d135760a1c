#include "gplvm/models/batch_workers.hpp"

#include <algorithm>

namespace gplvm {
namespace {

// Balances positions [first, last) in place in `worker` (which holds their owners on entry).
void balance_range(std::vector<int>& worker, Index first, Index last, int ranks) {
  const RowPartition shares(static_cast<std::uint64_t>(last - first), ranks);
  std::vector<Index> kept(ranks, 0);
  std::vector<Index> surplus;  // positions whose owner holds more than its share, in position order
  for (Index p = first; p < last; ++p) {
    const int owner = worker[p];
    if (kept[owner] < static_cast<Index>(shares.count(owner)))
      ++kept[owner];
    else
      surplus.push_back(p);
  }
  std::size_t next = 0;  // surplus and deficits have the same total, so next ends at surplus.size()
  for (int r = 0; r < ranks; ++r)
    for (; kept[r] < static_cast<Index>(shares.count(r)); ++kept[r]) worker[surplus[next++]] = r;
}

}  // namespace

std::vector<int> batch_workers(const std::vector<std::uint64_t>& batch_rows, Index num_active,
                               const RowPartition& partition, bool balance) {
  std::vector<int> worker(batch_rows.size());
  for (std::size_t p = 0; p < batch_rows.size(); ++p) worker[p] = partition.owner(batch_rows[p]);
  if (!balance) return worker;
  const Index b = static_cast<Index>(batch_rows.size()), a = std::min(num_active, b);
  balance_range(worker, 0, a, partition.num_ranks());
  balance_range(worker, a, b, partition.num_ranks());
  return worker;
}

Index batch_block_of(Index position, Index num_active) {
  if (position < num_active) return position / kRowsPerBatchBlock;
  const Index active_blocks = (num_active + kRowsPerBatchBlock - 1) / kRowsPerBatchBlock;
  return active_blocks + (position - num_active) / kRowsPerBatchBlock;
}

std::vector<int> batch_block_workers(Index batch_size, Index num_active, int ranks) {
  const Index a = std::min(num_active, batch_size);
  const auto blocks = [](Index rows) {
    return static_cast<std::uint64_t>((rows + kRowsPerBatchBlock - 1) / kRowsPerBatchBlock);
  };
  const RowPartition active(blocks(a), ranks), remainder(blocks(batch_size - a), ranks);
  std::vector<int> worker(static_cast<std::size_t>(batch_size));
  for (Index p = 0; p < batch_size; ++p)
    worker[p] = p < a ? active.owner(static_cast<std::uint64_t>(p / kRowsPerBatchBlock))
                      : ranks - 1 - remainder.owner(static_cast<std::uint64_t>((p - a) / kRowsPerBatchBlock));
  return worker;
}

std::vector<Index> batch_block_rows(const std::vector<int>& worker, Index num_active, int rank) {
  std::vector<Index> rows;
  Index last_block = -1;
  for (Index p = 0; p < static_cast<Index>(worker.size()); ++p) {
    if (worker[static_cast<std::size_t>(p)] != rank) continue;
    const Index block = batch_block_of(p, num_active);
    if (block != last_block) rows.push_back(0);
    ++rows.back();
    last_block = block;
  }
  return rows;
}

}  // namespace gplvm

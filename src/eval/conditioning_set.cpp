#include "gplvm/eval/conditioning_set.hpp"

#include <vector>

#include "gplvm/core/keyed_permutation.hpp"
#include "gplvm/parallel/row_redistribution.hpp"

namespace gplvm {

ConditioningSet conditioning_set(const DistributedDataset& train, const ConstMatrixRef& latents,
                                 std::uint64_t size, std::uint64_t seed, const Communicator& comm) {
  ConditioningSet c;
  if (size == 0 || size >= train.rows) {
    c.latents = latents;
    c.local_y = train.local;
    c.partition = train.partition;
    return c;
  }
  const KeyedPermutation permutation(train.rows, seed, 0);
  std::vector<char> chosen(train.rows, 0);
  for (std::uint64_t i = 0; i < size; ++i) chosen[permutation(i)] = 1;
  c.latents.resize(static_cast<Index>(size), latents.cols());
  const std::uint64_t begin = train.partition.begin(comm.rank()),
                      end = begin + train.partition.count(comm.rank());
  // The chosen rows keep their order, so this rank's chosen rows are a contiguous run of the M
  // rows starting at `offset` (the chosen rows of the ranks before it).
  std::uint64_t next = 0, offset = 0;
  std::vector<Index> mine;
  for (std::uint64_t row = 0; row < train.rows; ++row) {
    if (!chosen[row]) continue;
    if (row < begin) ++offset;
    if (row >= begin && row < end) mine.push_back(static_cast<Index>(row - begin));
    c.latents.row(static_cast<Index>(next++)) = latents.row(static_cast<Index>(row));
  }
  RowMatrix local(static_cast<Index>(mine.size()), train.local.cols());
  for (size_t i = 0; i < mine.size(); ++i) local.row(static_cast<Index>(i)) = train.local.row(mine[i]);
  c.local_y = rebalance_rows(comm, local, offset, size);
  c.partition = RowPartition(size, comm.size());
  return c;
}

}  // namespace gplvm

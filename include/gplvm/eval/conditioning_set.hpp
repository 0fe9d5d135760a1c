#pragma once
// The training points the exact predictive conditions on: a reproducible subset of the encoded
// training rows (the exact GP costs O(M^3), so evaluation bounds M), laid out as the distributed
// exact GP expects them.
#include <cstdint>

#include "gplvm/core/types.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

struct ConditioningSet {
  Matrix latents;     // M x Q, replicated
  RowMatrix local_y;  // this rank's block of the balanced partition of the M rows
  RowPartition partition{1, 1};
};

// The first `size` rows of the (seed, epoch 0) permutation of the training rows, in row order,
// moved to the balanced layout the ScaLAPACK path expects. size 0 or >= N: every row.
// `latents` are the N x Q training latents, replicated. Collective.
ConditioningSet conditioning_set(const DistributedDataset& train, const ConstMatrixRef& latents,
                                 std::uint64_t size, std::uint64_t seed, const Communicator& comm);

}  // namespace gplvm

#pragma once
// Moves per-row values of a batch between the ranks that hold them and the ranks that need them.
// Free latents live with the rank that owns their data row, but reproducible sums need each row
// block of the batch worked on whole by one rank (batch_block_workers): the owners' latent rows go
// to the block's worker, and the worker's gradients with respect to them come back the same way,
// with the two assignments swapped.
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// Collective. from[p] holds the row of batch position p, to[p] needs it (every rank passes the
// same arrays). `held` has one row per position with from[p] == this rank, in position order; the
// result has one row per position with to[p] == this rank, in position order. One alltoallv, or
// none when no row changes rank (then every rank skips it, as all see the same arrays).
RowMatrix exchange_batch_rows(const Communicator& comm, const std::vector<int>& from,
                              const std::vector<int>& to, const RowMatrix& held);

}  // namespace gplvm

#pragma once
// A block of rows passed around the ranks in a ring: at step s this rank holds the block that
// started on rank (rank - s) mod P. Each shift sends the block to the next rank and receives the
// previous rank's in one sendrecv, so at most two blocks are held at a time and no rank ever holds
// the whole data set. After P shifts every block is back where it started.
#include <cstdint>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

class RingPass {
 public:
  // `block` is this rank's block: partition.count(rank) rows of any fixed width.
  RingPass(RowMatrix block, const RowPartition& partition, const Communicator& comm);
  int origin() const noexcept { return origin_; }
  std::uint64_t first_row() const { return partition_.begin(origin_); }
  RowMatrix& block() noexcept { return block_; }
  // Passes the held block on and takes the previous rank's (collective).
  void shift();

 private:
  RowMatrix block_;
  RowPartition partition_;
  const Communicator& comm_;
  int origin_;
};

}  // namespace gplvm

#pragma once
// A block of rows passed around the ranks in a ring: at step s this rank holds the block that
// started on rank (rank - s) mod P. Each shift sends the block to the next rank and receives the
// previous rank's in one sendrecv, so at most two blocks are held at a time and no rank ever holds
// the whole data set. After P shifts every block is back where it started.
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

class RingPass {
 public:
  // `block` is this rank's block: partition.count(rank) rows of any fixed width.
  RingPass(RowMatrix block, const RowPartition& partition, const Communicator& comm);
  // The same for blocks of any sizes: rank r's block has counts[r] rows and starts at global row
  // first_rows[r] (so a search can pass its rows in chunks and hold two chunks, not two blocks).
  RingPass(RowMatrix block, std::vector<std::uint64_t> counts, std::vector<std::uint64_t> first_rows,
           const Communicator& comm);
  int origin() const noexcept { return origin_; }
  std::uint64_t first_row() const { return first_rows_[static_cast<std::size_t>(origin_)]; }
  RowMatrix& block() noexcept { return block_; }
  // Passes the held block on and takes the previous rank's (collective).
  void shift();

 private:
  RowMatrix block_;
  std::vector<std::uint64_t> counts_, first_rows_;
  const Communicator& comm_;
  int origin_;
};

}  // namespace gplvm

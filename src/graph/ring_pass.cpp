#include "ring_pass.hpp"

namespace gplvm {

namespace {

std::vector<std::uint64_t> block_counts(const RowPartition& partition) {
  std::vector<std::uint64_t> counts;
  for (int r = 0; r < partition.num_ranks(); ++r) counts.push_back(partition.count(r));
  return counts;
}

std::vector<std::uint64_t> block_starts(const RowPartition& partition) {
  std::vector<std::uint64_t> starts;
  for (int r = 0; r < partition.num_ranks(); ++r) starts.push_back(partition.begin(r));
  return starts;
}

}  // namespace

RingPass::RingPass(RowMatrix block, const RowPartition& partition, const Communicator& comm)
    : RingPass(std::move(block), block_counts(partition), block_starts(partition), comm) {}

RingPass::RingPass(RowMatrix block, std::vector<std::uint64_t> counts, std::vector<std::uint64_t> first_rows,
                   const Communicator& comm)
    : block_(std::move(block)),
      counts_(std::move(counts)),
      first_rows_(std::move(first_rows)),
      comm_(comm),
      origin_(comm.rank()) {}

void RingPass::shift() {
  const int size = comm_.size();
  const int next = (comm_.rank() + 1) % size, previous = (comm_.rank() + size - 1) % size;
  const int incoming = (origin_ + size - 1) % size;
  RowMatrix received(static_cast<Index>(counts_[static_cast<std::size_t>(incoming)]), block_.cols());
  comm_.sendrecv_bytes(block_.data(), sizeof(double) * static_cast<std::size_t>(block_.size()), next,
                       received.data(), sizeof(double) * static_cast<std::size_t>(received.size()), previous);
  block_ = std::move(received);
  origin_ = incoming;
}

}  // namespace gplvm

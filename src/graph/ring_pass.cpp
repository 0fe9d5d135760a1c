#include "ring_pass.hpp"

namespace gplvm {

RingPass::RingPass(RowMatrix block, const RowPartition& partition, const Communicator& comm)
    : block_(std::move(block)), partition_(partition), comm_(comm), origin_(comm.rank()) {}

void RingPass::shift() {
  const int size = comm_.size();
  const int next = (comm_.rank() + 1) % size, previous = (comm_.rank() + size - 1) % size;
  const int incoming = (origin_ + size - 1) % size;
  RowMatrix received(static_cast<Index>(partition_.count(incoming)), block_.cols());
  comm_.sendrecv_bytes(block_.data(), sizeof(double) * static_cast<std::size_t>(block_.size()), next,
                       received.data(), sizeof(double) * static_cast<std::size_t>(received.size()), previous);
  block_ = std::move(received);
  origin_ = incoming;
}

}  // namespace gplvm

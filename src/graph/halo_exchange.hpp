#pragma once
// Values of the remote vertices a rank's edges reach (its halo), fetched from their owners: the
// requests are exchanged once, then each exchange is one alltoallv of the values.
#include <cstdint>
#include <vector>

#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

class HaloExchange {
 public:
  HaloExchange(const SparseGraph& graph, const Communicator& comm);  // collective
  // Where edge e's column lives: a local vertex (>= 0) or remote slot -slot - 1 of exchange()'s result.
  std::int64_t slot(std::int64_t e) const { return slots_[static_cast<std::size_t>(e)]; }
  // The halo's values from each owner's `local` values, in remote-slot order (collective).
  std::vector<std::int64_t> exchange(const std::vector<std::int64_t>& local, const Communicator& comm) const;

 private:
  std::vector<std::int64_t> slots_;
  std::vector<int> request_counts_, serve_counts_;  // per rank: values received from / sent to it
  std::vector<std::int64_t> serve_;                 // local vertices to send, grouped by requesting rank
};

}  // namespace gplvm

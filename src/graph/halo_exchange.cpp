#include "halo_exchange.hpp"

#include <algorithm>

#include "gplvm/parallel/exchange_counts.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

HaloExchange::HaloExchange(const SparseGraph& graph, const Communicator& comm)
    : slots_(graph.columns.size()) {
  const auto first = static_cast<std::int64_t>(graph.first_row), end = first + graph.local_rows();
  std::vector<std::int64_t> remote;
  for (const std::int64_t column : graph.columns)
    if (column < first || column >= end) remote.push_back(column);
  std::sort(remote.begin(), remote.end());
  remote.erase(std::unique(remote.begin(), remote.end()), remote.end());
  for (std::size_t e = 0; e < graph.columns.size(); ++e) {
    const std::int64_t column = graph.columns[e];
    slots_[e] = column >= first && column < end
                    ? column - first
                    : -(std::lower_bound(remote.begin(), remote.end(), column) - remote.begin()) - 1;
  }
  // Sorted remote vertices are grouped by owner, in rank order: the requests to each owner.
  const RowPartition partition(graph.num_rows, comm.size());
  request_counts_.assign(static_cast<std::size_t>(comm.size()), 0);
  for (const std::int64_t v : remote) ++request_counts_[partition.owner(static_cast<std::uint64_t>(v))];
  serve_counts_ = receive_counts(request_counts_, comm);
  const std::vector<int> serve_offsets = offsets_of(serve_counts_);
  serve_.resize(static_cast<std::size_t>(serve_offsets.back() + serve_counts_.back()));
  comm.alltoallv(remote.data(), request_counts_, offsets_of(request_counts_), serve_.data(), serve_counts_,
                 serve_offsets);
  for (std::int64_t& v : serve_) v -= first;  // requested global vertices -> this rank's local ones
}

std::vector<std::int64_t> HaloExchange::exchange(const std::vector<std::int64_t>& local,
                                                 const Communicator& comm) const {
  std::vector<std::int64_t> sent(serve_.size());
  for (std::size_t s = 0; s < serve_.size(); ++s) sent[s] = local[static_cast<std::size_t>(serve_[s])];
  const std::vector<int> request_offsets = offsets_of(request_counts_);
  std::vector<std::int64_t> received(
      static_cast<std::size_t>(request_offsets.back() + request_counts_.back()));
  comm.alltoallv(sent.data(), serve_counts_, offsets_of(serve_counts_), received.data(), request_counts_,
                 request_offsets);
  return received;
}

}  // namespace gplvm

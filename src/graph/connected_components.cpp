#include "gplvm/graph/connected_components.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "gplvm/core/error.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "halo_exchange.hpp"

namespace gplvm {
namespace {

// Relaxes the local labels to a fixpoint with the remote ones fixed; whether any label fell.
bool relax_locally(const SparseGraph& graph, const HaloExchange& halo,
                   const std::vector<std::int64_t>& remote, std::vector<std::int64_t>& labels) {
  bool fell = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (Index i = 0; i < graph.local_rows(); ++i) {
      std::int64_t smallest = labels[static_cast<std::size_t>(i)];
      for (std::int64_t e = graph.row_begin(i); e < graph.row_end(i); ++e) {
        const std::int64_t slot = halo.slot(e);
        smallest = std::min(smallest, slot >= 0 ? labels[static_cast<std::size_t>(slot)]
                                                : remote[static_cast<std::size_t>(-slot - 1)]);
      }
      if (smallest < labels[static_cast<std::size_t>(i)]) {
        labels[static_cast<std::size_t>(i)] = smallest;
        changed = fell = true;
      }
    }
  }
  return fell;
}

// Every component's size in label order, from this rank's labels (one allgatherv of (label, count)).
std::vector<std::int64_t> component_sizes(const std::vector<std::int64_t>& labels, const Communicator& comm) {
  std::map<std::int64_t, std::int64_t> local;
  for (const std::int64_t label : labels) ++local[label];
  std::vector<std::int64_t> pairs;
  for (const auto& [label, count] : local) pairs.insert(pairs.end(), {label, count});
  const std::vector<std::int64_t> all = comm.allgatherv(pairs);
  std::map<std::int64_t, std::int64_t> sizes;
  for (std::size_t p = 0; p + 1 < all.size(); p += 2) sizes[all[p]] += all[p + 1];
  std::vector<std::int64_t> out;
  for (const auto& [label, size] : sizes) out.push_back(size);
  return out;
}

}  // namespace

ConnectedComponents connected_components(const SparseGraph& graph, const Communicator& comm) {
  const HaloExchange halo(graph, comm);
  std::vector<std::int64_t> labels(static_cast<std::size_t>(graph.local_rows()));
  std::iota(labels.begin(), labels.end(), static_cast<std::int64_t>(graph.first_row));
  for (bool changed = true; changed;) {
    const std::vector<std::int64_t> remote = halo.exchange(labels, comm);
    changed = comm.allreduce_max(std::int64_t{relax_locally(graph, halo, remote, labels)}) > 0;
  }
  return {labels, component_sizes(labels, comm)};
}

std::string disconnected_graph_message(const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> largest = sizes;
  std::sort(largest.begin(), largest.end(), std::greater<>());
  std::string listed;
  for (std::size_t c = 0; c < std::min<std::size_t>(largest.size(), 10); ++c)
    listed += (c == 0 ? "" : ", ") + std::to_string(largest[c]);
  if (largest.size() > 10) listed += ", ...";
  return "the neighbour graph has " + std::to_string(sizes.size()) + " connected components (sizes " +
         listed + "); raise graph.k (or graph.epsilon) until it is connected";
}

void require_connected(const ConnectedComponents& components) {
  if (components.count() > 1)
    throw InputError(disconnected_graph_message(components.sizes),
                     {"", "graph.k", std::to_string(components.count())});
}

}  // namespace gplvm

#pragma once
// Connected components of a symmetric distributed graph, by min-label propagation: every vertex
// starts labelled with its global index and takes the smallest label among itself and its
// neighbours, each rank relaxing its own vertices to a fixpoint between exchanges of the labels of
// the vertices its edges reach on other ranks (one alltoallv per round), until an allreduce says no
// label changed. Rounds are bounded by the number of times a shortest path crosses between ranks;
// memory is the graph plus one label per local and per reached remote vertex.
#include <cstdint>
#include <string>
#include <vector>

#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct ConnectedComponents {
  std::vector<std::int64_t> labels;  // per local vertex: the smallest global vertex of its component
  std::vector<std::int64_t> sizes;   // every component's size, in the order of their labels (all ranks)
  std::int64_t count() const noexcept { return static_cast<std::int64_t>(sizes.size()); }
};

// The components of `graph`, which must be symmetric (a symmetrised k-NN or an epsilon-graph);
// collective.
ConnectedComponents connected_components(const SparseGraph& graph, const Communicator& comm);

// "the neighbour graph has C connected components (sizes s1, s2, ...); raise graph.k ...": the
// sizes largest first, at most ten of them.
std::string disconnected_graph_message(const std::vector<std::int64_t>& sizes);

// InputError (key graph.k, value the component count) unless the graph is connected; thrown alike on
// every rank, since every rank holds the same sizes.
void require_connected(const ConnectedComponents& components);

}  // namespace gplvm

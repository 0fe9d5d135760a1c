#pragma once
// Shortest-path (geodesic) distances from a set of sources on a graph with non-negative edge
// lengths (EdgeWeight::distance), by Dijkstra's algorithm: Isomap's D_geo.
//
// The sources are split over the ranks as RowPartition splits that many rows, and each rank runs
// Dijkstra from its sources on the whole graph, gathered to every rank: memory per rank is O(edges)
// for the replicated graph plus its (local sources x n) distances. The replicated graph is the same
// on every rank at any rank count, so are the distances, bit for bit.
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct SourceDistances {
  std::uint64_t num_sources = 0;
  std::uint64_t first_source = 0;  // position in the source list of this rank's first source
  RowMatrix distances;             // this rank's sources x every vertex
};

// Distances from every vertex in `sources` (global vertices, the same list on every rank) to every
// vertex (collective). A negative edge length, a source out of range, or a vertex unreachable from
// a source are InputErrors, the last naming the graph's connected components (graph.k), thrown on
// every rank.
SourceDistances shortest_paths(const SparseGraph& graph, const std::vector<std::int64_t>& sources,
                               const Communicator& comm);

// Serial: the vertices of one shortest path from `source` to `target`, both included, source first,
// on a graph that holds all its rows (first_row 0, as a serial graph_from_edges builds it). InputError
// for an end that is not a vertex, a negative edge length, or a target the source does not reach.
std::vector<std::int64_t> shortest_path(const SparseGraph& graph, std::int64_t source, std::int64_t target);

// The same distances distributed by vertex: this rank's vertices (as RowPartition splits the
// graph's n rows) x every source, in source-list order (collective: one alltoallv). With the
// sources all the vertices, in order, this is the row-distributed distance matrix.
RowMatrix distances_by_vertex(const SourceDistances& paths, std::uint64_t num_vertices,
                              const Communicator& comm);

}  // namespace gplvm

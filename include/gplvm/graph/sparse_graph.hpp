#pragma once
// A weighted graph on n vertices distributed by rows: each rank holds the edges out of its vertices
// (the rows RowPartition gives it) in compressed sparse rows, with global column indices.
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct Edge {
  std::int64_t row = 0;     // global vertex the edge leaves
  std::int64_t column = 0;  // global vertex it enters
  double weight = 0.0;
};

struct SparseGraph {
  std::uint64_t num_rows = 0;              // vertices of the whole graph
  std::uint64_t first_row = 0;             // global index of this rank's first vertex
  std::vector<std::int64_t> row_start{0};  // local rows + 1 offsets into columns and weights
  std::vector<std::int64_t> columns;       // global, ascending within a row, no repeats
  std::vector<double> weights;
  Index local_rows() const noexcept { return static_cast<Index>(row_start.size()) - 1; }
  std::int64_t local_edges() const noexcept { return static_cast<std::int64_t>(columns.size()); }
  std::int64_t row_begin(Index i) const { return row_start[static_cast<std::size_t>(i)]; }
  std::int64_t row_end(Index i) const { return row_start[static_cast<std::size_t>(i) + 1]; }
};

// The graph of this rank's `local_rows` vertices from their edges (any order; every edge's row
// among them). Repeated (row, column) pairs are an Error: a construction made one twice.
SparseGraph graph_from_edges(std::uint64_t num_rows, std::uint64_t first_row, Index local_rows,
                             std::vector<Edge> edges);

// The transpose (every edge reversed), distributed the same way: each edge is sent to the owner of
// its column in one alltoallv (collective). Rows must be split as RowPartition splits them.
SparseGraph transpose(const SparseGraph& graph, const Communicator& comm);

// Whether every edge (i, j, w) has its reverse (j, i, w) with the same weight (collective).
bool is_symmetric(const SparseGraph& graph, const Communicator& comm);

}  // namespace gplvm

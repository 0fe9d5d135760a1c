#pragma once
// A directed graph merged with its transpose on the union of their edge patterns: the symmetric
// graphs of t-SNE's joint affinities and UMAP's fuzzy union. Private to the probdr layer.
#include <cstdint>
#include <limits>

#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm::detail {

// Every edge {i, j} present in either direction, weighted combine(a, b) with a = w(i -> j) and
// b = w(j -> i) (0 where that directed edge is absent), distributed as `graph` (collective: one
// transpose). The result is symmetric bit for bit when combine(a, b) == combine(b, a) bitwise.
template <class Combine>
SparseGraph union_with_transpose(const SparseGraph& graph, const Communicator& comm, Combine combine) {
  const SparseGraph reversed = transpose(graph, comm);
  SparseGraph out{graph.num_rows, graph.first_row, {0}, {}, {}};
  out.row_start.reserve(static_cast<std::size_t>(graph.local_rows()) + 1);
  out.columns.reserve(static_cast<std::size_t>(graph.local_edges() + reversed.local_edges()));
  out.weights.reserve(out.columns.capacity());
  constexpr std::int64_t kEnd = std::numeric_limits<std::int64_t>::max();
  for (Index i = 0; i < graph.local_rows(); ++i) {
    std::int64_t p = graph.row_begin(i), q = reversed.row_begin(i);
    while (p < graph.row_end(i) || q < reversed.row_end(i)) {
      const std::int64_t ca = p < graph.row_end(i) ? graph.columns[static_cast<std::size_t>(p)] : kEnd;
      const std::int64_t cb = q < reversed.row_end(i) ? reversed.columns[static_cast<std::size_t>(q)] : kEnd;
      const std::int64_t column = ca < cb ? ca : cb;
      const double a = ca == column ? graph.weights[static_cast<std::size_t>(p++)] : 0.0;
      const double b = cb == column ? reversed.weights[static_cast<std::size_t>(q++)] : 0.0;
      out.columns.push_back(column);
      out.weights.push_back(combine(a, b));
    }
    out.row_start.push_back(static_cast<std::int64_t>(out.columns.size()));
  }
  return out;
}

}  // namespace gplvm::detail

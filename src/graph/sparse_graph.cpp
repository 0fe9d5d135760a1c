#include "gplvm/graph/sparse_graph.hpp"

#include <algorithm>
#include <numeric>

#include "gplvm/core/error.hpp"
#include "gplvm/parallel/exchange_counts.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {
SparseGraph graph_from_edges(std::uint64_t num_rows, std::uint64_t first_row, Index local_rows,
                             std::vector<Edge> edges) {
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return a.row < b.row || (a.row == b.row && a.column < b.column);
  });
  SparseGraph graph{
      num_rows, first_row, std::vector<std::int64_t>(static_cast<std::size_t>(local_rows) + 1, 0), {}, {}};
  graph.columns.reserve(edges.size());
  graph.weights.reserve(edges.size());
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const std::int64_t local = edges[e].row - static_cast<std::int64_t>(first_row);
    if (local < 0 || local >= local_rows)
      throw Error("graph_from_edges: an edge leaves a vertex of another rank");
    if (e > 0 && edges[e].row == edges[e - 1].row && edges[e].column == edges[e - 1].column)
      throw Error("graph_from_edges: edge " + std::to_string(edges[e].row) + " -> " +
                  std::to_string(edges[e].column) + " given twice");
    ++graph.row_start[static_cast<std::size_t>(local) + 1];
    graph.columns.push_back(edges[e].column);
    graph.weights.push_back(edges[e].weight);
  }
  std::partial_sum(graph.row_start.begin(), graph.row_start.end(), graph.row_start.begin());
  return graph;
}

namespace {

template <class T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

}  // namespace

// Packed flat and each buffer released as soon as it is passed on, so that at most two copies of the
// edges (24 bytes each) are held at a time: at 10^7 rows with k = 15 one copy is 1.8 GB per rank.
SparseGraph transpose(const SparseGraph& graph, const Communicator& comm) {
  const RowPartition partition(graph.num_rows, comm.size());
  const int ranks = comm.size();
  const auto owner = [&](std::int64_t e) {
    return partition.owner(static_cast<std::uint64_t>(graph.columns[static_cast<std::size_t>(e)]));
  };
  // Reversed edges, grouped by the rank that owns their new row (the old column).
  std::vector<int> counts(static_cast<std::size_t>(ranks), 0);
  for (std::int64_t e = 0; e < graph.local_edges(); ++e) ++counts[static_cast<std::size_t>(owner(e))];
  const std::vector<int> send_offsets = offsets_of(counts);
  std::vector<int> cursor(send_offsets);
  std::vector<std::int64_t> pairs(2 * static_cast<std::size_t>(graph.local_edges()));
  std::vector<double> weights(static_cast<std::size_t>(graph.local_edges()));
  for (Index i = 0; i < graph.local_rows(); ++i)
    for (std::int64_t e = graph.row_begin(i); e < graph.row_end(i); ++e) {
      const auto slot = static_cast<std::size_t>(cursor[static_cast<std::size_t>(owner(e))]++);
      pairs[2 * slot] = graph.columns[static_cast<std::size_t>(e)];
      pairs[2 * slot + 1] = static_cast<std::int64_t>(graph.first_row) + i;
      weights[slot] = graph.weights[static_cast<std::size_t>(e)];
    }
  const std::vector<int> incoming = receive_counts(counts, comm);
  std::vector<int> pair_counts(counts), incoming_pairs(incoming);
  for (int& c : pair_counts) c *= 2;
  for (int& c : incoming_pairs) c *= 2;
  const std::vector<int> in_offsets = offsets_of(incoming), in_pair_offsets = offsets_of(incoming_pairs);
  const auto received = static_cast<std::size_t>(in_offsets.back() + incoming.back());
  std::vector<std::int64_t> in_pairs(2 * received);
  comm.alltoallv(pairs.data(), pair_counts, offsets_of(pair_counts), in_pairs.data(), incoming_pairs,
                 in_pair_offsets);
  release(pairs);
  std::vector<double> in_weights(received);
  comm.alltoallv(weights.data(), counts, send_offsets, in_weights.data(), incoming, in_offsets);
  release(weights);
  std::vector<Edge> edges(received);
  for (std::size_t e = 0; e < received; ++e) edges[e] = {in_pairs[2 * e], in_pairs[2 * e + 1], in_weights[e]};
  release(in_pairs);
  release(in_weights);
  return graph_from_edges(graph.num_rows, graph.first_row, graph.local_rows(), std::move(edges));
}

bool is_symmetric(const SparseGraph& graph, const Communicator& comm) {
  const SparseGraph reversed = transpose(graph, comm);
  const bool same = reversed.row_start == graph.row_start && reversed.columns == graph.columns &&
                    reversed.weights == graph.weights;
  return comm.allreduce_min(std::int64_t{same}) == 1;
}

}  // namespace gplvm

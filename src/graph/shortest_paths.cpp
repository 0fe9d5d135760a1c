#include "gplvm/graph/shortest_paths.hpp"

#include <cmath>
#include <limits>
#include <queue>

#include "gplvm/core/error.hpp"
#include "gplvm/core/memory_reuse.hpp"
#include "gplvm/graph/connected_components.hpp"
#include "gplvm/parallel/exchange_counts.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {
namespace {

// The whole graph's rows on every rank (one allgatherv of each array).
SparseGraph replicate(const SparseGraph& graph, const Communicator& comm) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(graph.local_rows()));
  for (Index i = 0; i < graph.local_rows(); ++i) lengths[i] = graph.row_end(i) - graph.row_begin(i);
  SparseGraph all{graph.num_rows, 0, {0}, comm.allgatherv(graph.columns), comm.allgatherv(graph.weights)};
  for (const std::int64_t length : comm.allgatherv(lengths))
    all.row_start.push_back(all.row_start.back() + length);
  return all;
}

// One source's distances to every vertex, written into `out` (infinity where unreachable), and,
// when `previous` is given (n entries), each reached vertex's predecessor on a shortest path.
void dijkstra(const SparseGraph& graph, std::int64_t source, double* out, std::int64_t* previous = nullptr) {
  const auto n = static_cast<std::size_t>(graph.num_rows);
  std::fill(out, out + n, std::numeric_limits<double>::infinity());
  if (previous) std::fill(previous, previous + n, std::int64_t{-1});
  using Entry = std::pair<double, std::int64_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> frontier;
  out[source] = 0.0;
  frontier.push({0.0, source});
  while (!frontier.empty()) {
    const auto [distance, v] = frontier.top();
    frontier.pop();
    if (distance > out[v]) continue;  // a stale entry: v was reached more cheaply since
    for (std::int64_t e = graph.row_begin(v); e < graph.row_end(v); ++e) {
      const std::int64_t w = graph.columns[e];
      const double through = distance + graph.weights[e];
      if (through < out[w]) {
        out[w] = through;
        if (previous) previous[w] = v;
        frontier.push({through, w});
      }
    }
  }
}

void check_inputs(const SparseGraph& graph, const std::vector<std::int64_t>& sources,
                  const Communicator& comm) {
  std::string problem;
  for (const double w : graph.weights)
    if (!(w >= 0.0)) problem = "an edge length is negative or NaN (" + std::to_string(w) + ")";
  comm.agree_on_problem(problem, "graph.weight");
  for (const std::int64_t s : sources)
    if (s < 0 || static_cast<std::uint64_t>(s) >= graph.num_rows)
      problem = "source " + std::to_string(s) + " is not a vertex of the graph";
  comm.agree_on_problem(problem, "sources");
}

}  // namespace

SourceDistances shortest_paths(const SparseGraph& graph, const std::vector<std::int64_t>& sources,
                               const Communicator& comm) {
  check_inputs(graph, sources, comm);
  const SparseGraph all = replicate(graph, comm);
  const RowPartition split(sources.size(), comm.size());
  SourceDistances paths{
      sources.size(), split.begin(comm.rank()),
      RowMatrix(static_cast<Index>(split.count(comm.rank())), static_cast<Index>(graph.num_rows))};
  advise_huge_pages(paths.distances.data(),
                    static_cast<std::size_t>(paths.distances.size()) * sizeof(double));
  for (Index s = 0; s < paths.distances.rows(); ++s)
    dijkstra(all, sources[paths.first_source + s], paths.distances.row(s).data());
  // An unreachable vertex means a disconnected graph: every rank names its components.
  if (comm.allreduce_max(std::int64_t{!paths.distances.allFinite()}) > 0) {
    require_connected(connected_components(graph, comm));
    throw InputError("a vertex is unreachable from a source of a connected graph: the graph is not symmetric",
                     {"", "graph", "directed"});
  }
  return paths;
}

RowMatrix distances_by_vertex(const SourceDistances& paths, std::uint64_t num_vertices,
                              const Communicator& comm) {
  const RowPartition vertices(num_vertices, comm.size()), sources(paths.num_sources, comm.size());
  const Index mine = paths.distances.rows();
  // To each rank, its vertices' distances from this rank's sources: vertex by vertex, sources inner.
  std::vector<int> send_counts(static_cast<std::size_t>(comm.size()));
  std::vector<double> send;
  for (int r = 0; r < comm.size(); ++r) {
    send_counts[r] = static_cast<int>(vertices.count(r) * static_cast<std::uint64_t>(mine));
    for (std::uint64_t v = vertices.begin(r); v < vertices.begin(r + 1); ++v)
      for (Index s = 0; s < mine; ++s) send.push_back(paths.distances(s, static_cast<Index>(v)));
  }
  const std::vector<int> counts = receive_counts(send_counts, comm), offsets = offsets_of(counts);
  std::vector<double> received(static_cast<std::size_t>(offsets.back() + counts.back()));
  comm.alltoallv(send.data(), send_counts, offsets_of(send_counts), received.data(), counts, offsets);
  const auto local = static_cast<Index>(vertices.count(comm.rank()));
  RowMatrix out(local, static_cast<Index>(paths.num_sources));
  for (int r = 0; r < comm.size(); ++r) {
    const auto from = static_cast<Index>(sources.count(r)), first = static_cast<Index>(sources.begin(r));
    for (Index v = 0; v < local; ++v)
      for (Index s = 0; s < from; ++s) out(v, first + s) = received[offsets[r] + v * from + s];
  }
  return out;
}

std::vector<std::int64_t> shortest_path(const SparseGraph& graph, std::int64_t source, std::int64_t target) {
  const auto n = static_cast<std::int64_t>(graph.num_rows);
  require(graph.first_row == 0 && graph.local_rows() == n, "a single shortest path needs the whole graph",
          {"", "graph", std::to_string(graph.local_rows()) + " of " + std::to_string(n) + " rows"});
  require(source >= 0 && source < n && target >= 0 && target < n, "a path's end is not a vertex of the graph",
          {"", "vertex", std::to_string(source < 0 || source >= n ? source : target)});
  for (const double w : graph.weights)
    require(w >= 0.0, "an edge length is negative or NaN", {"", "graph.weight", std::to_string(w)});
  std::vector<double> distance(static_cast<std::size_t>(n));
  std::vector<std::int64_t> previous(static_cast<std::size_t>(n));
  dijkstra(graph, source, distance.data(), previous.data());
  require(std::isfinite(distance[static_cast<std::size_t>(target)]),
          "no path joins the two vertices: the graph is not connected",
          {"", "graph", std::to_string(source) + " - " + std::to_string(target)});
  std::vector<std::int64_t> path{target};
  while (path.back() != source) path.push_back(previous[static_cast<std::size_t>(path.back())]);
  return {path.rbegin(), path.rend()};
}

}  // namespace gplvm

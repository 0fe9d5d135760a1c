#include "gplvm/lllvm/neighbourhood_graph.hpp"

#include <cstdint>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/core/name_registry.hpp"
#include "gplvm/graph/connected_components.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/graph/laplacian.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "gplvm/petsc/petsc_matrix.hpp"

namespace gplvm {
namespace {

void require_binary_symmetric(const SparseMatrix& adjacency) {
  require(adjacency.rows() == adjacency.cols() && adjacency.rows() >= 2,
          "the neighbourhood graph's adjacency matrix must be square with at least 2 vertices",
          {"", "graph", std::to_string(adjacency.rows()) + " x " + std::to_string(adjacency.cols())});
  for (Index j = 0; j < adjacency.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(adjacency, j); it; ++it) {
      require(it.row() != it.col(), "the neighbourhood graph has a self-loop",
              {"", "graph", "vertex " + std::to_string(it.row())});
      require(it.value() == 1.0, "LL-LVM needs a binary graph (every edge weight 1)",
              {"", "graph", "edge " + std::to_string(it.row()) + " - " + std::to_string(it.col())});
    }
  const SparseMatrix asymmetry = (adjacency - SparseMatrix(adjacency.transpose())).pruned();
  require(asymmetry.nonZeros() == 0, "the neighbourhood graph is not symmetric", {"", "graph"});
}

// L must be D - G: L + G - D has no entry.
void require_laplacian_of(const SparseMatrix& laplacian, const SparseMatrix& adjacency) {
  require(laplacian.rows() == adjacency.rows() && laplacian.cols() == adjacency.cols(),
          "the Laplacian and the adjacency matrix differ in size", {"", "graph"});
  const Vector degree = adjacency * Vector::Ones(adjacency.cols());
  SparseMatrix degrees(adjacency.rows(), adjacency.cols());
  std::vector<Eigen::Triplet<double>> diagonal;
  for (Index i = 0; i < degree.size(); ++i) diagonal.emplace_back(i, i, degree[i]);
  degrees.setFromTriplets(diagonal.begin(), diagonal.end());
  const SparseMatrix residual = (laplacian + adjacency - degrees).pruned();
  require(residual.nonZeros() == 0, "the Laplacian is not D - G of the neighbourhood graph", {"", "graph"});
}

SparseGraph whole_graph(const SparseMatrix& adjacency) {
  std::vector<Edge> edges;
  edges.reserve(static_cast<std::size_t>(adjacency.nonZeros()));
  for (Index j = 0; j < adjacency.outerSize(); ++j)
    for (SparseMatrix::InnerIterator it(adjacency, j); it; ++it) edges.push_back({it.row(), it.col(), 1.0});
  const auto n = static_cast<std::uint64_t>(adjacency.rows());
  return graph_from_edges(n, 0, adjacency.rows(), std::move(edges));
}

// The graph is replicated, so one process's components are every rank's.
void require_connected_graph(const SparseMatrix& adjacency) {
  const Communicator self(MPI_COMM_SELF);
  require_connected(connected_components(whole_graph(adjacency), self));
}

void require_binary_weights(const SparseGraph& graph, const Communicator& comm) {
  std::string problem;
  for (std::size_t e = 0; e < graph.weights.size() && problem.empty(); ++e)
    if (graph.weights[e] != 1.0) problem = "LL-LVM needs a binary graph (every edge weight 1)";
  comm.agree_on_problem(problem, "graph.weight");
  require(is_symmetric(graph, comm), "the neighbourhood graph is not symmetric", {"", "graph"});
}

// Every rank's edges, on every rank.
SparseMatrix gathered_adjacency(const SparseGraph& graph, const Communicator& comm) {
  std::vector<std::int64_t> pairs;
  pairs.reserve(2 * graph.columns.size());
  for (Index i = 0; i < graph.local_rows(); ++i)
    for (std::int64_t e = graph.row_begin(i); e < graph.row_end(i); ++e)
      pairs.insert(pairs.end(), {static_cast<std::int64_t>(graph.first_row) + i, graph.columns[e]});
  const std::vector<std::int64_t> all = comm.allgatherv(pairs);
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(all.size() / 2);
  for (std::size_t p = 0; p + 1 < all.size(); p += 2) entries.emplace_back(all[p], all[p + 1], 1.0);
  const auto n = static_cast<Index>(graph.num_rows);
  SparseMatrix adjacency(n, n);
  adjacency.setFromTriplets(entries.begin(), entries.end());
  return adjacency;
}

SparseMatrix gathered_laplacian(const SparseGraph& graph, const Communicator& comm) {
  const MatHandle laplacian = graph_laplacian(graph, LaplacianKind::unnormalised, comm);
  const RowMatrix local = copy_local_rows(laplacian.get());
  return Matrix(comm.allgather_rows(DataRef(local))).sparseView();
}

}  // namespace

NeighbourCount parse_neighbour_count(const std::string& name, const std::string& key) {
  NameRegistry<NeighbourCount> counts(key, "meaning of k");
  counts.add("neighbours", NeighbourCount::neighbours);
  counts.add("including_self", NeighbourCount::including_self);
  return counts.at(name);
}

NeighbourhoodGraph neighbourhood_graph(SparseMatrix adjacency, SparseMatrix laplacian) {
  adjacency.makeCompressed();
  laplacian.makeCompressed();
  require_binary_symmetric(adjacency);
  require_laplacian_of(laplacian, adjacency);
  require_connected_graph(adjacency);
  SparseMatrix signless = laplacian + 2.0 * adjacency;
  return {std::move(adjacency), std::move(laplacian), std::move(signless)};
}

NeighbourhoodGraph neighbourhood_graph(const SparseGraph& graph, const Communicator& comm) {
  require_binary_weights(graph, comm);
  // Before the Laplacian, which would name only the first isolated vertex.
  require_connected(connected_components(graph, comm));
  return neighbourhood_graph(gathered_adjacency(graph, comm), gathered_laplacian(graph, comm));
}

NeighbourhoodGraph knn_neighbourhood_graph(const DataRef& local_rows, Index k, NeighbourCount count,
                                           const Communicator& comm, const std::string& key) {
  if (count == NeighbourCount::including_self)
    require(k >= 2, "k counts the point itself here (including_self), so it must be at least 2",
            {"", key, std::to_string(k)});
  const Index others = count == NeighbourCount::including_self ? k - 1 : k;
  const KnnGraph knn = exact_neighbours(local_rows, others, comm, key);
  return neighbourhood_graph(symmetrise(knn, Symmetrisation::union_of_edges, {}, comm), comm);
}

}  // namespace gplvm

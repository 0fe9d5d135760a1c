// Connected components and shortest paths at 1-4 ranks: three separated clusters give three
// components of the right sizes and an error naming them and graph.k; Dijkstra equals a dense
// Floyd-Warshall built here.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/connected_components.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/graph/shortest_paths.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "graph/graph_test_data.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::local_block;

SparseGraph distance_graph(const RowMatrix& all, Index k, const Communicator& comm) {
  const KnnGraph knn = exact_neighbours(local_block(all, comm), k, comm);
  return symmetrise(knn, Symmetrisation::union_of_edges, {EdgeWeight::distance, 1.0}, comm);
}

TEST(ConnectedComponents, FindThreeSeparatedClusters) {
  const Communicator comm;
  // Sizes 40, 25, 38, interleaved so that every component spans several ranks.
  const RowMatrix clusters = testing::three_clusters(40, 25, 38, 3, 41);
  std::vector<Index> order(103);
  for (Index i = 0; i < 103; ++i) order[i] = (i * 37) % 103;  // 37 is prime to 103: a permutation
  RowMatrix all(103, 3);
  for (Index i = 0; i < 103; ++i) all.row(i) = clusters.row(order[i]);
  const ConnectedComponents components = connected_components(distance_graph(all, 5, comm), comm);
  ASSERT_EQ(components.count(), 3);
  // Each row's component is the smallest row index of its cluster.
  std::array<Index, 3> smallest{103, 103, 103};
  const auto cluster_of = [&](Index row) { return order[row] < 40 ? 0 : order[row] < 65 ? 1 : 2; };
  for (Index i = 0; i < 103; ++i) smallest[cluster_of(i)] = std::min(smallest[cluster_of(i)], i);
  const RowPartition partition(103, comm.size());
  for (Index i = 0; i < static_cast<Index>(components.labels.size()); ++i) {
    const Index row = static_cast<Index>(partition.begin(comm.rank())) + i;
    EXPECT_EQ(components.labels[i], smallest[cluster_of(row)]) << "row " << row;
  }
  std::vector<std::pair<Index, std::int64_t>> by_label = {
      {smallest[0], 40}, {smallest[1], 25}, {smallest[2], 38}};
  std::sort(by_label.begin(), by_label.end());
  for (int c = 0; c < 3; ++c) EXPECT_EQ(components.sizes[c], by_label[c].second);
  {
    const auto e = testing::input_error_of([&] { require_connected(components); });
    EXPECT_TRUE(testing::contains(e.message, "has 3 connected components (sizes 40, 38, 25)")) << e.message;
    EXPECT_TRUE(testing::contains(e.message, "graph.k")) << e.message;
    EXPECT_EQ(e.key, "graph.k");
  }
}

TEST(ConnectedComponents, OfAConnectedGraphIsOne) {
  const Communicator comm;
  const ConnectedComponents components =
      connected_components(distance_graph(testing::gaussian_rows(60, 2, 42), 6, comm), comm);
  EXPECT_EQ(components.count(), 1);
  EXPECT_NO_THROW(require_connected(components));
  for (const std::int64_t label : components.labels) EXPECT_EQ(label, 0);
}

// All-pairs shortest paths of a dense weight matrix (0 = no edge off the diagonal).
Matrix floyd_warshall(const Matrix& weights, const Matrix& pattern) {
  const Index n = weights.rows();
  Matrix D = Matrix::Constant(n, n, std::numeric_limits<double>::infinity());
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j)
      if (i == j)
        D(i, j) = 0.0;
      else if (pattern(i, j) > 0)
        D(i, j) = weights(i, j);
  for (Index m = 0; m < n; ++m)
    for (Index i = 0; i < n; ++i)
      for (Index j = 0; j < n; ++j) D(i, j) = std::min(D(i, j), D(i, m) + D(m, j));
  return D;
}

TEST(ShortestPaths, EqualFloydWarshall) {
  const Communicator comm;
  const RowMatrix all = testing::gaussian_rows(53, 2, 43);
  const SparseGraph graph = distance_graph(all, 4, comm);
  const auto [weights, pattern] = testing::dense_graph(graph, comm);
  const Matrix expected = floyd_warshall(weights, pattern);
  ASSERT_TRUE(expected.allFinite()) << "the test graph must be connected";
  const std::vector<std::int64_t> sources = {52, 0, 17, 3, 40, 8, 29};
  const SourceDistances paths = shortest_paths(graph, sources, comm);
  for (Index s = 0; s < paths.distances.rows(); ++s) {
    const std::int64_t source = sources[paths.first_source + s];
    for (Index v = 0; v < 53; ++v) EXPECT_NEAR(paths.distances(s, v), expected(source, v), 1e-12);
  }
  // By vertex: this rank's vertices x all sources.
  const RowMatrix by_vertex = distances_by_vertex(paths, 53, comm);
  const RowPartition partition(53, comm.size());
  ASSERT_EQ(by_vertex.rows(), static_cast<Index>(partition.count(comm.rank())));
  ASSERT_EQ(by_vertex.cols(), 7);
  for (Index v = 0; v < by_vertex.rows(); ++v)
    for (Index s = 0; s < 7; ++s)
      EXPECT_NEAR(by_vertex(v, s), expected(sources[s], static_cast<Index>(partition.begin(comm.rank())) + v),
                  1e-12);
  // Geodesics are at least the straight-line distances, and longer for some pairs.
  EXPECT_GT((expected - weights).maxCoeff(), 0.0);
}

TEST(ShortestPaths, NameTheComponentsOfADisconnectedGraph) {
  const Communicator comm;
  const SparseGraph graph = distance_graph(testing::three_clusters(20, 15, 18, 2, 44), 4, comm);
  {
    const auto e = testing::input_error_of([&] { shortest_paths(graph, {0, 30}, comm); });
    EXPECT_TRUE(testing::contains(e.message, "3 connected components (sizes 20, 18, 15)")) << e.message;
    EXPECT_EQ(e.key, "graph.k");
  }
}

}  // namespace
}  // namespace gplvm

// The graph layer on one process against SciPy (through /usr/bin/python3; skipped where SciPy is
// missing): k nearest neighbours against scipy.spatial.cKDTree, shortest paths against
// scipy.sparse.csgraph.shortest_path; and the k-NN of a given distance matrix, ties included.
#include <gtest/gtest.h>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/graph/shortest_paths.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "graph/graph_test_data.hpp"
#include "support/python_reference.hpp"

namespace gplvm {
namespace {

TEST(ScipyReference, ExactNeighboursEqualCKDTree) {
  const Communicator serial;  // MPI is not running: this process is the whole communicator
  const RowMatrix all = testing::gaussian_rows(80, 4, 51);
  const KnnGraph knn = exact_neighbours(all, 6, serial);
  const std::vector<double> ref = testing::python_reference(
      "from scipy.spatial import cKDTree\n"
      "X = M[0]\n"
      "d, i = cKDTree(X).query(X, k=7)\n"  // the first neighbour of each row is the row itself
      "print(' '.join(map(repr, i[:, 1:].ravel().tolist() + d[:, 1:].ravel().tolist())))\n",
      {Matrix(all)});
  if (ref.empty()) GTEST_SKIP() << "no Python with SciPy";
  ASSERT_EQ(ref.size(), 2u * 80 * 6);
  for (Index i = 0; i < 80; ++i)
    for (Index t = 0; t < 6; ++t) {
      EXPECT_EQ(knn.neighbours(i, t), static_cast<std::int64_t>(ref[i * 6 + t])) << "row " << i;
      EXPECT_NEAR(knn.distances(i, t), ref[80 * 6 + i * 6 + t], 1e-12);
    }
}

TEST(ScipyReference, QueryNeighboursEqualCKDTree) {
  const RowMatrix reference = testing::gaussian_rows(50, 3, 52), queries = testing::gaussian_rows(9, 3, 53);
  const KnnGraph knn = query_neighbours(reference, queries, 4);
  const std::vector<double> ref = testing::python_reference(
      "from scipy.spatial import cKDTree\n"
      "d, i = cKDTree(M[0]).query(M[1], k=4)\n"
      "print(' '.join(map(repr, i.ravel().tolist())))\n",
      {Matrix(reference), Matrix(queries)});
  if (ref.empty()) GTEST_SKIP() << "no Python with SciPy";
  ASSERT_EQ(ref.size(), 9u * 4);
  for (Index i = 0; i < 9; ++i)
    for (Index t = 0; t < 4; ++t) EXPECT_EQ(knn.neighbours(i, t), static_cast<std::int64_t>(ref[i * 4 + t]));
}

TEST(ScipyReference, ShortestPathsEqualCsgraph) {
  const Communicator serial;
  const RowMatrix all = testing::gaussian_rows(45, 2, 54);
  const SparseGraph graph = symmetrise(exact_neighbours(all, 4, serial), Symmetrisation::union_of_edges,
                                       {EdgeWeight::distance, 1.0}, serial);
  const Matrix weights = testing::dense_graph(graph, serial).first;
  std::vector<std::int64_t> sources(45);
  for (Index i = 0; i < 45; ++i) sources[i] = i;
  const SourceDistances paths = shortest_paths(graph, sources, serial);
  const std::vector<double> ref = testing::python_reference(
      "from scipy.sparse import csr_matrix\n"
      "from scipy.sparse.csgraph import shortest_path\n"
      "D = shortest_path(csr_matrix(M[0]), method='D', directed=False)\n"
      "print(' '.join(map(repr, D.ravel().tolist())))\n",
      {weights});
  if (ref.empty()) GTEST_SKIP() << "no Python with SciPy";
  ASSERT_EQ(ref.size(), 45u * 45);
  for (Index i = 0; i < 45; ++i)
    for (Index j = 0; j < 45; ++j) EXPECT_NEAR(paths.distances(i, j), ref[i * 45 + j], 1e-12);
}

// A given distance matrix with ties: the k nearest by (distance, index), the point itself left out.
TEST(NeighboursFromDistances, BreakTiesByTheLowerIndex) {
  Matrix D(5, 5);
  D << 0, 2, 1, 1, 3,  //
      2, 0, 2, 2, 2,   //
      1, 2, 0, 0, 1,   //
      1, 2, 0, 0, 1,   //
      3, 2, 1, 1, 0;
  const KnnGraph knn = neighbours_from_distances(D, 2);
  const IndexMatrix expected = (IndexMatrix(5, 2) << 2, 3, 0, 2, 3, 0, 2, 0, 2, 3).finished();
  EXPECT_EQ(knn.neighbours, expected);
  EXPECT_EQ(knn.distances(1, 0), 2.0);
  EXPECT_THROW(neighbours_from_distances(D, 5), InputError);
}

}  // namespace
}  // namespace gplvm

// Graph Laplacians as distributed PETSc matrices at 1-4 ranks, against dense Eigen references
// built here from the same graph: row sums, the symmetric normalised spectrum in [0, 2], and an
// isolated vertex refused on every rank.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/graph/laplacian.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "graph/graph_test_data.hpp"
#include "support/petsc_environment.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::gaussian_rows;
using testing::local_block;

Matrix dense_laplacian(Mat L, const Communicator& comm) {
  return comm.allgather_rows(DataRef(copy_local_rows(L)));
}

// The three Laplacians of a dense symmetric weight matrix, by their textbook formulas.
Matrix reference_laplacian(const Matrix& W, LaplacianKind kind) {
  const Vector d = W.rowwise().sum();
  const Matrix I = Matrix::Identity(W.rows(), W.cols());
  if (kind == LaplacianKind::unnormalised) return Matrix(d.asDiagonal()) - W;
  if (kind == LaplacianKind::random_walk) return I - d.cwiseInverse().asDiagonal() * W;
  const Vector s = d.cwiseSqrt().cwiseInverse();
  return I - s.asDiagonal() * W * s.asDiagonal();
}

SparseGraph heat_graph(const RowMatrix& all, const Communicator& comm) {
  const KnnGraph knn = exact_neighbours(local_block(all, comm), 5, comm);
  return symmetrise(knn, Symmetrisation::union_of_edges, {EdgeWeight::heat, 1.5}, comm);
}

TEST(GraphLaplacian, EqualsTheDenseFormulas) {
  const Communicator comm;
  const RowMatrix all = gaussian_rows(47, 3, 31);
  const SparseGraph graph = heat_graph(all, comm);
  const Matrix W = testing::dense_graph(graph, comm).first;
  for (const char* name : {"unnormalised", "random_walk", "symmetric"}) {
    const LaplacianKind kind = parse_laplacian(name);
    const MatHandle L = graph_laplacian(graph, kind, comm);
    PetscInt rows = 0, columns = 0;
    MatGetSize(L.get(), &rows, &columns);
    ASSERT_EQ(rows, 47);
    ASSERT_EQ(columns, 47);
    const Matrix dense = dense_laplacian(L.get(), comm);
    EXPECT_LT((dense - reference_laplacian(W, kind)).cwiseAbs().maxCoeff(), 1e-14) << name;
    if (kind != LaplacianKind::symmetric) {  // L 1 = 0 for D - W and I - D^-1 W
      EXPECT_LT(dense.rowwise().sum().cwiseAbs().maxCoeff(), 1e-13) << name;
    }
  }
}

TEST(GraphLaplacian, SymmetricNormalisedHasItsSpectrumInZeroTwo) {
  const Communicator comm;
  const SparseGraph graph = heat_graph(gaussian_rows(40, 2, 32), comm);
  const Matrix dense = dense_laplacian(graph_laplacian(graph, LaplacianKind::symmetric, comm).get(), comm);
  EXPECT_LT((dense - dense.transpose()).cwiseAbs().maxCoeff(), 1e-15);
  const Vector eigenvalues = Eigen::SelfAdjointEigenSolver<Matrix>(dense).eigenvalues();
  EXPECT_GT(eigenvalues.minCoeff(), -1e-12);
  EXPECT_LT(eigenvalues.maxCoeff(), 2.0 + 1e-12);
  EXPECT_NEAR(eigenvalues.minCoeff(), 0.0, 1e-12);  // D^1/2 1 spans the null space of a connected graph
  EXPECT_GT(eigenvalues[1], 1e-6);                  // connected: zero once only
}

TEST(GraphLaplacian, RefusesAnIsolatedVertexOnEveryRank) {
  const Communicator comm;
  RowMatrix all = gaussian_rows(30, 2, 33);
  all.row(23) << 50.0, 50.0;  // far from the rest: no row has it among its neighbours
  const KnnGraph knn = exact_neighbours(local_block(all, comm), 3, comm);
  const SparseGraph mutual = symmetrise(knn, Symmetrisation::mutual, {EdgeWeight::binary, 1.0}, comm);
  {
    const auto e = testing::input_error_of([&] { graph_laplacian(mutual, LaplacianKind::symmetric, comm); });
    // Row 23 is isolated; another row may be too (no mutual neighbour): the error names the lowest.
    const Vector degree = testing::dense_graph(mutual, comm).second.rowwise().sum();
    ASSERT_EQ(degree[23], 0.0);
    Index lowest = 0;
    while (degree[lowest] > 0) ++lowest;
    EXPECT_TRUE(testing::contains(e.message, "vertex (row) " + std::to_string(lowest) + " ")) << e.message;
    EXPECT_TRUE(testing::contains(e.message, "graph.k")) << e.message;
  }
  {
    const auto e = testing::input_error_of([&] { parse_laplacian("normalised"); });
    EXPECT_EQ(e.key, "graph.laplacian");
  }
}

// One PETSc session for the binary, as main() holds one.
const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace
}  // namespace gplvm

// LL-LVM's neighbourhood graph from the graph/ layer at 1-4 ranks: the union of the k-NN edges
// (true k-NN, or k counting the point itself), its Laplacian, the same on every rank as a brute-force
// graph; a disconnected graph is refused naming its number of components.
#include <gtest/gtest.h>

#include "gplvm/core/error.hpp"
#include "gplvm/lllvm/neighbourhood_graph.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "lllvm_oracle.hpp"
#include "lllvm_test_problems.hpp"
#include "support/petsc_environment.hpp"
#include "support/test_support.hpp"

namespace gplvm::testing {
namespace {

const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new PetscEnvironment);

RowMatrix local_rows(const Matrix& y, const Communicator& comm) {
  const RowPartition partition(static_cast<std::uint64_t>(y.rows()), comm.size());
  return y.middleRows(static_cast<Index>(partition.begin(comm.rank())),
                      static_cast<Index>(partition.count(comm.rank())));
}

TEST(LllvmGraph, KnnGraphMatchesBruteForce) {
  const Communicator comm;
  const Matrix y = swiss_roll(50, 7);
  const RowMatrix local = local_rows(y, comm);
  for (const Index k : {3, 6}) {
    const NeighbourhoodGraph graph = knn_neighbourhood_graph(local, k, NeighbourCount::neighbours, comm);
    const Matrix expected = knn_adjacency(y, k);
    EXPECT_EQ(Matrix(graph.adjacency), expected);
    EXPECT_EQ(Matrix(graph.laplacian), lllvm_oracle::laplacian(expected));
    EXPECT_EQ(Matrix(graph.signless), Matrix(expected.rowwise().sum().asDiagonal()) + expected);
    const NeighbourhoodGraph authors =
        knn_neighbourhood_graph(local, k + 1, NeighbourCount::including_self, comm);
    EXPECT_EQ(Matrix(authors.adjacency), expected);
  }
}

TEST(LllvmGraph, DisconnectedGraphIsRefusedNamingItsComponents) {
  const Communicator comm;
  Matrix y = swiss_roll(40, 7);
  y.bottomRows(20).array() += 100.0;  // two far clusters
  const RowMatrix local = local_rows(y, comm);
  try {
    knn_neighbourhood_graph(local, 3, NeighbourCount::neighbours, comm);
    FAIL() << "a disconnected graph was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "graph.k");
    EXPECT_EQ(e.context().value, "2");
    EXPECT_TRUE(contains(e.what(), "2 connected components")) << e.what();
  }
}

}  // namespace
}  // namespace gplvm::testing

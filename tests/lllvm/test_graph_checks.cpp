// The checks of a graph given as matrices (a user-supplied graph): binary, symmetric, no self-loops,
// L = D - G, and connected, each refused with an InputError naming what is wrong.
#include <gtest/gtest.h>

#include "gplvm/core/error.hpp"
#include "gplvm/lllvm/neighbourhood_graph.hpp"
#include "lllvm_oracle.hpp"
#include "lllvm_test_problems.hpp"
#include "support/test_support.hpp"

namespace gplvm::testing {
namespace {

InputError refusal(const Matrix& adjacency, const Matrix& laplacian) {
  try {
    neighbourhood_graph(adjacency.sparseView(), laplacian.sparseView());
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "the graph was accepted";
  return InputError("");
}

TEST(LllvmGraphChecks, AcceptsAConnectedBinaryGraph) {
  const Matrix g = random_connected_adjacency(8, 3);
  const NeighbourhoodGraph graph = graph_of(g);
  EXPECT_EQ(graph.size(), 8);
  EXPECT_EQ(Matrix(graph.signless), Matrix(g.rowwise().sum().asDiagonal()) + g);
}

TEST(LllvmGraphChecks, RefusesADisconnectedGraphNamingItsComponents) {
  Matrix g = Matrix::Zero(6, 6);
  for (const auto& [i, j] : {std::pair{0, 1}, {1, 2}, {3, 4}}) g(i, j) = g(j, i) = 1.0;
  const InputError e = refusal(g, lllvm_oracle::laplacian(g));
  EXPECT_EQ(e.context().key, "graph.k");
  EXPECT_EQ(e.context().value, "3");  // {0, 1, 2}, {3, 4}, {5}
  EXPECT_TRUE(contains(e.what(), "3 connected components")) << e.what();
}

TEST(LllvmGraphChecks, RefusesWeightsAsymmetryAndSelfLoops) {
  const Matrix g = random_connected_adjacency(6, 4);
  Matrix weighted = g;
  weighted(0, 1) = weighted(1, 0) = 0.5;
  EXPECT_TRUE(contains(refusal(weighted, lllvm_oracle::laplacian(weighted)).what(), "binary"));
  Matrix asymmetric = g;
  asymmetric(0, 5) = 1.0 - asymmetric(0, 5);
  EXPECT_TRUE(contains(refusal(asymmetric, lllvm_oracle::laplacian(asymmetric)).what(), "symmetric"));
  Matrix looped = g;
  looped(2, 2) = 1.0;
  EXPECT_TRUE(contains(refusal(looped, lllvm_oracle::laplacian(g)).what(), "self-loop"));
  EXPECT_TRUE(contains(refusal(g, 2.0 * lllvm_oracle::laplacian(g)).what(), "D - G"));
}

}  // namespace
}  // namespace gplvm::testing

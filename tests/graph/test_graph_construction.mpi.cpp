// Symmetrised k-NN graphs and epsilon-graphs at 1-4 ranks against dense references built here
// from a brute-force k-NN and all pairwise distances.
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/epsilon_graph.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "graph/graph_test_data.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::dense_graph;
using testing::gaussian_rows;
using testing::local_block;

constexpr Index kRows = 41, kNeighbours = 4;
constexpr double kHeatT = 2.5;

// The directed k-NN graph as dense matrices: A(i, j) = w(d_ij) for j among i's neighbours, and its
// pattern.
std::pair<Matrix, Matrix> dense_directed(const RowMatrix& all, EdgeWeight weight) {
  Matrix W = Matrix::Zero(kRows, kRows), P = W;
  const auto neighbours = testing::brute_force_neighbours(all, kNeighbours);
  for (Index i = 0; i < kRows; ++i)
    for (const auto& [d2, j] : neighbours[i]) {
      W(i, j) = weight == EdgeWeight::heat     ? std::exp(-d2 / kHeatT)
                : weight == EdgeWeight::binary ? 1.0
                                               : std::sqrt(d2);
      P(i, j) = 1.0;
    }
  return {W, P};
}

class Symmetrised : public ::testing::TestWithParam<EdgeWeight> {};

TEST_P(Symmetrised, GraphsEqualTheDenseReferences) {
  const Communicator comm;
  const RowMatrix all = gaussian_rows(kRows, 3, 21);
  const KnnGraph knn = exact_neighbours(local_block(all, comm), kNeighbours, comm);
  const EdgeWeighting weighting{GetParam(), kHeatT};
  const auto [A, P] = dense_directed(all, GetParam());
  const Matrix At = A.transpose(), Pt = P.transpose();
  // Union: either direction, the larger weight; mutual: both, the smaller; fuzzy: a + b - ab.
  const Matrix union_pattern = P.cwiseMax(Pt), mutual_pattern = P.cwiseMin(Pt);
  struct Case {
    const char* name;
    Matrix weights, pattern;
  };
  std::vector<Case> cases = {{"union", A.cwiseMax(At), union_pattern},
                             {"mutual", A.cwiseMin(At).cwiseProduct(mutual_pattern), mutual_pattern}};
  if (GetParam() != EdgeWeight::distance)
    cases.push_back({"fuzzy_union", A + At - A.cwiseProduct(At), union_pattern});
  for (const Case& c : cases) {
    const SparseGraph graph = symmetrise(knn, parse_symmetrisation(c.name), weighting, comm);
    const auto [weights, pattern] = dense_graph(graph, comm);
    EXPECT_EQ(pattern, c.pattern) << c.name;
    EXPECT_LT((weights - c.weights).cwiseAbs().maxCoeff(), 1e-12) << c.name;
    EXPECT_TRUE(is_symmetric(graph, comm)) << c.name;
  }
  // The reference is not trivially symmetric: some neighbour relations are one-way.
  EXPECT_GT((union_pattern - mutual_pattern).sum(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Weights, Symmetrised,
                         ::testing::Values(EdgeWeight::binary, EdgeWeight::heat, EdgeWeight::distance));

TEST(Symmetrise, RefusesFuzzyUnionOfDistancesAndABadHeatT) {
  const Communicator comm;
  const KnnGraph knn = exact_neighbours(local_block(gaussian_rows(10, 2, 22), comm), 2, comm);
  {
    const auto e = testing::input_error_of([&] {
      symmetrise(knn, Symmetrisation::fuzzy_union, {EdgeWeight::distance, 1.0}, comm);
    });
    EXPECT_EQ(e.key, "graph.weight");
  }
  {
    const auto e = testing::input_error_of([&] {
      symmetrise(knn, Symmetrisation::union_of_edges, {EdgeWeight::heat, 0.0}, comm);
    });
    EXPECT_EQ(e.key, "graph.heat_t");
  }
  {
    const auto e = testing::input_error_of([&] { parse_symmetrisation("intersection"); });
    EXPECT_EQ(e.key, "graph.symmetrisation");
  }
}

TEST(EpsilonGraph, EqualsAllPairsWithinEpsilon) {
  const Communicator comm;
  const RowMatrix all = gaussian_rows(57, 2, 23);
  const double epsilon = 0.6;
  const SparseGraph graph = epsilon_graph(local_block(all, comm), epsilon, {EdgeWeight::heat, kHeatT}, comm);
  Matrix expected_weights = Matrix::Zero(57, 57), expected_pattern = expected_weights;
  for (Index i = 0; i < 57; ++i)
    for (Index j = 0; j < 57; ++j) {
      const double d = (all.row(i) - all.row(j)).norm();
      ASSERT_GT(std::abs(d - epsilon), 1e-9) << "a pair on the boundary: the test data must avoid it";
      if (i != j && d < epsilon) {
        expected_pattern(i, j) = 1.0;
        expected_weights(i, j) = std::exp(-d * d / kHeatT);
      }
    }
  const auto [weights, pattern] = dense_graph(graph, comm);
  EXPECT_EQ(pattern, expected_pattern);
  EXPECT_LT((weights - expected_weights).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_GT(expected_pattern.sum(), 57.0);  // not an empty or trivial graph
  EXPECT_LT(expected_pattern.sum(), 57.0 * 56.0 / 2);
  {
    const auto e = testing::input_error_of([&] { epsilon_graph(local_block(all, comm), -1.0, {}, comm); });
    EXPECT_EQ(e.key, "graph.epsilon");
  }
}

TEST(SparseGraph, TransposeReversesEveryEdge) {
  const Communicator comm;
  const RowMatrix all = gaussian_rows(29, 3, 24);
  const SparseGraph directed =
      directed_graph(exact_neighbours(local_block(all, comm), 3, comm), {EdgeWeight::distance, 1.0});
  const auto [weights, pattern] = dense_graph(directed, comm);
  const auto [reversed, reversed_pattern] = dense_graph(transpose(directed, comm), comm);
  EXPECT_EQ(reversed, Matrix(weights.transpose()));
  EXPECT_EQ(reversed_pattern, Matrix(pattern.transpose()));
  EXPECT_FALSE(is_symmetric(directed, comm));
}

}  // namespace
}  // namespace gplvm

// The synthetic binary tree: the sizes of Watanabe et al. 2025, Table 1, codes whose Hamming
// distances are tree path lengths, the documented oscillation of each row, labels and determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "gplvm/core/error.hpp"
#include "gplvm/synthetic/synthetic_binary_tree.hpp"

namespace gplvm {
namespace {

// Edges between heap nodes a and b: climb the deeper one until they meet.
int path_length(Index a, Index b) {
  int edges = 0;
  while (a != b) {
    if (a > b)
      a /= 2;
    else
      b /= 2;
    ++edges;
  }
  return edges;
}

TEST(SyntheticBinaryTree, HasTheSizesOfTable1) {
  const std::pair<Index, std::pair<Index, Index>> table[] = {{4, {300, 15}}, {5, {620, 31}}, {6, {1260, 63}}};
  for (const auto& [depth, size] : table) {
    const SyntheticBinaryTree t = synthetic_binary_tree(depth, 1);
    EXPECT_EQ(t.data.Y.rows(), size.first);
    EXPECT_EQ(t.data.Y.cols(), size.second);
    EXPECT_EQ(t.codes.rows(), size.first);
    EXPECT_EQ(t.codes.cols(), size.second);
    EXPECT_EQ(static_cast<Index>(t.data.labels.size()), size.first);
  }
  EXPECT_THROW(synthetic_binary_tree(1, 0), InputError);
  EXPECT_THROW(synthetic_binary_tree(13, 0), InputError);
}

TEST(SyntheticBinaryTree, CodeHammingDistanceIsTheTreePathLength) {
  const SyntheticBinaryTree t = synthetic_binary_tree(4, 2, 3);
  for (Index r = 0; r < t.codes.rows(); ++r)
    for (Index s = 0; s < t.codes.rows(); ++s) {
      const Index a = 1 + r / 3, b = 1 + s / 3;
      EXPECT_EQ((t.codes.row(r) - t.codes.row(s)).cwiseAbs().sum(), path_length(a, b)) << a << " " << b;
    }
}

TEST(SyntheticBinaryTree, RowsAreTheirNodesCodeOscillatedOnAncestorsAndSiblings) {
  const SyntheticBinaryTree t = synthetic_binary_tree(5, 3);
  const Index nodes = 31;
  for (Index r = 0; r < t.data.Y.rows(); ++r) {
    const Index node = 1 + r / 20;
    EXPECT_EQ(t.data.latent_true(r, 0), node);
    Index depth = 0, touched = 0;
    for (Index a = node; a > 0; a /= 2) ++depth;
    EXPECT_EQ(t.codes.row(r).sum(), depth);
    EXPECT_EQ(t.data.labels[r], node == 1 ? 0 : depth);
    EXPECT_EQ(t.data.Y(r, 0), 1.0);  // the root's entry is never oscillated
    for (Index a = node; a > 1; a /= 2) {
      // Node a sits at 0-based index a - 1, its sibling (a xor 1) at (a ^ 1) - 1.
      const double c = t.data.Y(r, a - 1), s = t.data.Y(r, (a ^ 1) - 1);
      EXPECT_NEAR(c * c + s * s, 1.0, 1e-15);
      const double theta = std::atan2(s, c);
      EXPECT_GT(theta, 0.0);
      EXPECT_LT(theta, std::numbers::pi / 4);
      touched += 2;
    }
    // Every other entry is the clean code's (0 off the path, 1 at the root).
    Index unchanged = 0;
    for (Index j = 0; j < nodes; ++j) unchanged += t.data.Y(r, j) == t.codes(r, j);
    EXPECT_GE(unchanged, nodes - touched);
  }
}

TEST(SyntheticBinaryTree, IsAFunctionOfTheSeed) {
  const SyntheticBinaryTree a = synthetic_binary_tree(4, 7), b = synthetic_binary_tree(4, 7),
                            c = synthetic_binary_tree(4, 8);
  EXPECT_TRUE((a.data.Y.array() == b.data.Y.array()).all());
  EXPECT_FALSE((a.data.Y.array() == c.data.Y.array()).all());
  EXPECT_TRUE((a.codes.array() == c.codes.array()).all());
}

}  // namespace
}  // namespace gplvm

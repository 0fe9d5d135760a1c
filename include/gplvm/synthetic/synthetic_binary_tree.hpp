#pragma once
// The synthetic binary tree (SBT) of Cho et al. 2022 (RoWN), used by Watanabe et al. 2025 to test
// hierarchy-preserving embeddings (gplvm generate --kind binary_tree).
//
// A complete binary tree of depth d has n = 2^d - 1 nodes, numbered as in a heap: the root is 1
// and the children of a are 2a and 2a + 1. Node a's binary code c_a in {0, 1}^n has c_a[j] = 1
// (0-based j) exactly when node j + 1 is a or an ancestor of a, so the Hamming distance between
// two codes is the length of the tree path between their nodes. Each node gives samples_per_node
// rows (20 in the papers: N = 20 (2^d - 1), D = 2^d - 1; Table 1: 300 x 15, 620 x 31, 1260 x 63),
// each its code "oscillated": for every ancestor-or-self index j except the root's (j = 0),
// theta ~ U(0, pi/4) and y[j] = cos theta, y[sibling(j)] = sin theta, sibling(j) = j + 1 for odd
// j, j - 1 for even j; every other entry is the clean code's. Values stay in [0, 1].
// Rows are grouped by node (node 1 first); labels are the node's depth (root 1) except the root,
// labelled 0, as in the published data; latent_true = (node number, depth); codes are the clean
// c_a of each row's node (N x n, 0/1).
// Deterministic in (depth, samples_per_node, seed): theta of row r, index j is the generator
// stream's uniform draw (r, j).
#include <cstdint>

#include "gplvm/synthetic/synthetic.hpp"

namespace gplvm {

struct SyntheticBinaryTree {
  SyntheticData data;
  RowMatrix codes;
};

// Depth 2..12 (throws InputError naming "depth" otherwise); samples_per_node >= 1.
SyntheticBinaryTree synthetic_binary_tree(Index depth, std::uint64_t seed, Index samples_per_node = 20);

// The number of nodes, 2^depth - 1 (the data dimension D).
Index binary_tree_nodes(Index depth);

}  // namespace gplvm

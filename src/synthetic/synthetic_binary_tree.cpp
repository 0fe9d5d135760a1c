#include "gplvm/synthetic/synthetic_binary_tree.hpp"

#include <cmath>
#include <numbers>
#include <string>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// The generator stream of the oscillation angles (distinct from synthetic.cpp's streams).
constexpr std::uint64_t kAngleStream = 50;

// Depth of heap node a (root = 1): the position of its highest set bit.
Index node_depth(Index a) {
  Index depth = 0;
  for (; a > 0; a >>= 1) ++depth;
  return depth;
}

// c_a: ones at a and at its ancestors a / 2, a / 4, ..., 1 (0-based index node - 1).
Vector clean_code(Index a, Index nodes) {
  Vector c = Vector::Zero(nodes);
  for (; a > 0; a >>= 1) c[a - 1] = 1.0;
  return c;
}

}  // namespace

Index binary_tree_nodes(Index depth) {
  return (Index{1} << depth) - 1;
}

SyntheticBinaryTree synthetic_binary_tree(Index depth, std::uint64_t seed, Index samples_per_node) {
  require(depth >= 2 && depth <= 12, "synthetic binary tree depth must be 2..12 (the papers use 4, 5, 6)",
          {"", "depth", std::to_string(depth)});
  require(samples_per_node >= 1, "synthetic binary tree needs at least one sample per node",
          {"", "samples_per_node", std::to_string(samples_per_node)});
  const Index nodes = binary_tree_nodes(depth), N = nodes * samples_per_node;
  const CounterRng rng(seed);
  SyntheticBinaryTree out;
  SyntheticData& data = out.data;
  data.Y.resize(N, nodes);
  data.latent_true.resize(N, 2);
  data.labels.resize(static_cast<std::size_t>(N));
  out.codes.resize(N, nodes);
  for (Index row = 0; row < N; ++row) {
    const Index node = 1 + row / samples_per_node;
    const Vector code = clean_code(node, nodes);
    out.codes.row(row) = code.transpose();
    data.Y.row(row) = code.transpose();
    for (Index j = 1; j < nodes; ++j) {
      if (code[j] == 0.0) continue;
      const double theta =
          0.25 * std::numbers::pi *
          rng.uniform(RngPurpose::generator, kAngleStream, 0, static_cast<std::uint64_t>(row * nodes + j));
      data.Y(row, j) = std::cos(theta);
      data.Y(row, j % 2 == 1 ? j + 1 : j - 1) = std::sin(theta);
    }
    data.latent_true.row(row) << static_cast<double>(node), static_cast<double>(node_depth(node));
    data.labels[static_cast<std::size_t>(row)] = node == 1 ? 0 : node_depth(node);
  }
  data.description = "binary_tree (SBT): depth=" + std::to_string(depth) + " N=" + std::to_string(N) +
                     " D=" + std::to_string(nodes) + " samples_per_node=" + std::to_string(samples_per_node) +
                     " seed=" + std::to_string(seed);
  return out;
}

}  // namespace gplvm

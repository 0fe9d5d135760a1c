#pragma once
// From a k-NN graph (directed: i -> its k neighbours) to a symmetric weighted graph, and the
// weights of an edge of length d.
//
// With a = w(i -> j) and b = w(j -> i) (0 where that directed edge is absent), the edge {i, j} is
//   union         present if either is, weight max(a, b)
//   mutual        present if both are, weight min(a, b)
//   fuzzy_union   present if either is, weight a + b - a b (UMAP's probabilistic t-conorm; weights
//                 must lie in [0, 1], so not with `distance` weights)
// Weights of a directed edge of length d: binary 1, heat exp(-d^2 / t), distance d (for shortest
// paths). Exact duplicates give d = 0: weight 1 (binary, heat) or 0 (distance).
#include <string>

#include "gplvm/graph/knn_graph.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

enum class Symmetrisation { union_of_edges, mutual, fuzzy_union };
enum class EdgeWeight { binary, heat, distance };

// By name ("union", "mutual", "fuzzy_union"; "binary", "heat", "distance"): InputError naming `key`
// and the known names otherwise.
Symmetrisation parse_symmetrisation(const std::string& name, const std::string& key = "graph.symmetrisation");
EdgeWeight parse_edge_weight(const std::string& name, const std::string& key = "graph.weight");

struct EdgeWeighting {
  EdgeWeight kind = EdgeWeight::binary;
  double heat_t = 1.0;  // t of the heat kernel, > 0
  double operator()(double distance) const;
};

// The directed k-NN graph: row i's edges to its k neighbours, weighted.
SparseGraph directed_graph(const KnnGraph& knn, const EdgeWeighting& weighting);

// The symmetric graph of `knn` by `rule` (collective: one transpose). Errors name graph.weight
// (fuzzy_union of distances) and graph.heat_t (t <= 0).
SparseGraph symmetrise(const KnnGraph& knn, Symmetrisation rule, const EdgeWeighting& weighting,
                       const Communicator& comm);

}  // namespace gplvm

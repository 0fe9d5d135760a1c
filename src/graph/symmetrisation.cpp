#include "gplvm/graph/symmetrisation.hpp"

#include <cmath>

#include "gplvm/core/error.hpp"
#include "named_choice.hpp"

namespace gplvm {
namespace {

// The weight of edge {i, j} from a = w(i -> j) and b = w(j -> i) (0 where absent); NaN: no edge.
double combine(Symmetrisation rule, double a, double b, bool in_a, bool in_b) {
  switch (rule) {
    case Symmetrisation::mutual:
      return in_a && in_b ? std::min(a, b) : std::nan("");
    case Symmetrisation::fuzzy_union:
      return a + b - a * b;
    default:
      return std::max(a, b);
  }
}

// Row i of `a` (the directed graph) and of `b` (its transpose) merged by column under `rule`.
void merge_row(const SparseGraph& a, const SparseGraph& b, Index i, Symmetrisation rule,
               std::vector<Edge>& out) {
  std::int64_t p = a.row_begin(i), q = b.row_begin(i);
  const std::int64_t row = static_cast<std::int64_t>(a.first_row) + i;
  while (p < a.row_end(i) || q < b.row_end(i)) {
    const std::int64_t ca = p < a.row_end(i) ? a.columns[static_cast<std::size_t>(p)] : INT64_MAX;
    const std::int64_t cb = q < b.row_end(i) ? b.columns[static_cast<std::size_t>(q)] : INT64_MAX;
    const std::int64_t column = std::min(ca, cb);
    const bool in_a = ca == column, in_b = cb == column;
    const double wa = in_a ? a.weights[static_cast<std::size_t>(p++)] : 0.0;
    const double wb = in_b ? b.weights[static_cast<std::size_t>(q++)] : 0.0;
    const double w = combine(rule, wa, wb, in_a, in_b);
    if (!std::isnan(w)) out.push_back({row, column, w});
  }
}

}  // namespace

Symmetrisation parse_symmetrisation(const std::string& name, const std::string& key) {
  return named_choice<Symmetrisation>(name, key, "symmetrisation",
                                      {{"union", Symmetrisation::union_of_edges},
                                       {"mutual", Symmetrisation::mutual},
                                       {"fuzzy_union", Symmetrisation::fuzzy_union}});
}

EdgeWeight parse_edge_weight(const std::string& name, const std::string& key) {
  return named_choice<EdgeWeight>(
      name, key, "edge weight",
      {{"binary", EdgeWeight::binary}, {"heat", EdgeWeight::heat}, {"distance", EdgeWeight::distance}});
}

double EdgeWeighting::operator()(double distance) const {
  if (kind == EdgeWeight::heat) return std::exp(-distance * distance / heat_t);
  return kind == EdgeWeight::distance ? distance : 1.0;
}

SparseGraph directed_graph(const KnnGraph& knn, const EdgeWeighting& weighting) {
  require(weighting.kind != EdgeWeight::heat || weighting.heat_t > 0.0,
          "the heat kernel's t must be positive", {"", "graph.heat_t", std::to_string(weighting.heat_t)});
  std::vector<Edge> edges;
  edges.reserve(static_cast<std::size_t>(knn.local_rows() * knn.k));
  for (Index i = 0; i < knn.local_rows(); ++i)
    for (Index t = 0; t < knn.k; ++t)
      edges.push_back({static_cast<std::int64_t>(knn.first_row) + i, knn.neighbours(i, t),
                       weighting(knn.distances(i, t))});
  return graph_from_edges(knn.num_rows, knn.first_row, knn.local_rows(), std::move(edges));
}

SparseGraph symmetrise(const KnnGraph& knn, Symmetrisation rule, const EdgeWeighting& weighting,
                       const Communicator& comm) {
  require(!(rule == Symmetrisation::fuzzy_union && weighting.kind == EdgeWeight::distance),
          "fuzzy_union needs weights in [0, 1] (binary or heat), not distances",
          {"", "graph.weight", "distance"});
  const SparseGraph directed = directed_graph(knn, weighting);
  const SparseGraph reversed = transpose(directed, comm);
  std::vector<Edge> edges;
  for (Index i = 0; i < directed.local_rows(); ++i) merge_row(directed, reversed, i, rule, edges);
  return graph_from_edges(knn.num_rows, knn.first_row, knn.local_rows(), std::move(edges));
}

}  // namespace gplvm

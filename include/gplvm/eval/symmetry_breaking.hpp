#pragma once
// The symmetry-breaking diagnostic (docs/math/symmetry.md): how far an embedding stretches the
// edges of the data's known generating graph. With B_median the median edge length over the whole
// graph, each edge's B_ij = ||x_i - x_j|| / B_median, and B_max the largest; the symmetry is broken
// when B_max > B_t. An intact loop has B_max near 1; a loop cut open has one edge as long as the
// gap. The measure cannot tell one break from several.
#include <cstdint>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/eval/generating_graph.hpp"

namespace gplvm {

// B_t of the published study: a break is an edge longer than 3 typical edges.
constexpr double kDefaultSymmetryThreshold = 3.0;

// One group (object, cycle) of the graph: its own outcome.
struct GroupSymmetry {
  std::int64_t name = 0;  // GeneratingGraph::group_names
  Index edges = 0;
  double max_ratio = 0.0;  // the largest B_ij over the group's edges
  bool broken = false;     // max_ratio > threshold
};

struct SymmetryBreaking {
  double threshold = kDefaultSymmetryThreshold;  // B_t
  double median_length = 0.0;                    // B_median, over every edge
  std::vector<double> ratios;                    // B_ij, one per edge in graph order
  double max_ratio = 0.0;                        // B_max over every edge
  bool broken = false;                           // max_ratio > threshold
  std::vector<GroupSymmetry> groups;             // in the graph's group order
  Index broken_groups() const;
};

// Euclidean edge lengths of the rows of `latents` (N x Q, N = graph.rows). InputError naming
// `where` (the latents' file and dataset) when the latents hold NaN or Inf, have another number of
// rows than the graph, the graph has no edges, or the median edge length is zero (more than half
// the edges join coincident latents: no scale to measure against). threshold must be positive.
SymmetryBreaking measure_symmetry_breaking(const DataRef& latents, const GeneratingGraph& graph,
                                           double threshold, const ErrorContext& where);

}  // namespace gplvm

#include "gplvm/eval/symmetry_breaking.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace gplvm {
namespace {

// The median of a copy (the mean of the two middle values for an even count).
double median(std::vector<double> values) {
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return 0.5 * (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)) + upper);
}

void require_measurable(const DataRef& latents, const GeneratingGraph& graph, const ErrorContext& where) {
  require(!graph.edges.empty(), "the generating graph has no edges", where);
  require(
      latents.rows() == graph.rows,
      "the latents have a different number of rows from the generating graph's " + std::to_string(graph.rows),
      {where.file, where.key, std::to_string(latents.rows()) + " rows"});
  require(latents.allFinite(), "latents hold NaN or Inf", where);
}

}  // namespace

Index SymmetryBreaking::broken_groups() const {
  return static_cast<Index>(
      std::count_if(groups.begin(), groups.end(), [](const auto& g) { return g.broken; }));
}

SymmetryBreaking measure_symmetry_breaking(const DataRef& latents, const GeneratingGraph& graph,
                                           double threshold, const ErrorContext& where) {
  require(threshold > 0 && std::isfinite(threshold), "the threshold B_t must be a positive number",
          {"", "--threshold", std::to_string(threshold)});
  require_measurable(latents, graph, where);
  std::vector<double> lengths(graph.edges.size());
  for (std::size_t k = 0; k < graph.edges.size(); ++k)
    lengths[k] = (latents.row(graph.edges[k].a) - latents.row(graph.edges[k].b)).norm();
  SymmetryBreaking s;
  s.threshold = threshold;
  s.median_length = median(lengths);
  require(s.median_length > 0 && std::isfinite(s.median_length),
          "the median edge length is zero (at least half the graph's edges join coincident latents): no "
          "scale to measure breaks against",
          {where.file, where.key, "B_median = " + std::to_string(s.median_length)});
  s.ratios.resize(lengths.size());
  s.groups.resize(graph.group_names.size());
  for (std::size_t g = 0; g < s.groups.size(); ++g) s.groups[g].name = graph.group_names[g];
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    s.ratios[k] = lengths[k] / s.median_length;
    GroupSymmetry& group = s.groups[static_cast<std::size_t>(graph.edge_group[k])];
    ++group.edges;
    group.max_ratio = std::max(group.max_ratio, s.ratios[k]);
  }
  s.max_ratio = *std::max_element(s.ratios.begin(), s.ratios.end());
  s.broken = s.max_ratio > threshold;
  for (GroupSymmetry& group : s.groups) group.broken = group.max_ratio > threshold;
  return s;
}

}  // namespace gplvm

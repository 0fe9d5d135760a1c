#pragma once
// What the affinity constructions (perplexity_affinities.cpp, umap_affinities.cpp, umap_curve.cpp)
// check alike: a value written back in an error exactly as given, and a row's k-NN distances.
#include <cstdio>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/knn_graph.hpp"

namespace gplvm {

// The shortest text that reads back as the same double.
inline std::string exact_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// Row i's distances are finite and not negative (a NaN in the data reaches them); InputError naming
// the global row otherwise.
inline void require_finite_distances(const KnnGraph& knn, Index i) {
  const auto row = knn.distances.row(i);
  if (row.allFinite() && row.minCoeff() >= 0.0) return;
  const std::string global = std::to_string(knn.first_row + static_cast<std::uint64_t>(i));
  throw InputError(
      "row " + global + "'s neighbour distances are not finite and non-negative (the data hold NaN or Inf)",
      {"", "rows", global});
}

}  // namespace gplvm

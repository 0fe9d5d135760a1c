#pragma once
// The k nearest neighbours of a set of rows: what every neighbour search of this layer returns
// (exact_neighbours, hnsw_neighbours, query_neighbours, neighbours_from_distances).
#include <cstdint>

#include "gplvm/core/types.hpp"

namespace gplvm {

using IndexMatrix = Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// For each local row i (global row first_row + i): its k neighbours' global row indices
// (neighbours(i, t)) and distances (distances(i, t)), nearest first. Ties in distance are broken by
// the lower global index, so the order is a total order and the result does not depend on the
// order in which candidates were seen (the rank count, the blocks). A row is never its own
// neighbour; a duplicate of it is, at distance zero.
struct KnnGraph {
  std::uint64_t num_rows = 0;   // rows of the whole data set (every rank)
  std::uint64_t first_row = 0;  // global index of this rank's first row
  Index k = 0;
  IndexMatrix neighbours;  // local rows x k
  RowMatrix distances;     // local rows x k, Euclidean (not squared) unless stated otherwise
  Index local_rows() const noexcept { return neighbours.rows(); }
};

}  // namespace gplvm

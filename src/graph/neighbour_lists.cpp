#include "neighbour_lists.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {

NeighbourLists::NeighbourLists(Index rows, Index k)
    : rows_(rows),
      k_(k),
      keys_(static_cast<std::size_t>(rows * k)),
      indices_(static_cast<std::size_t>(rows * k)),
      counts_(static_cast<std::size_t>(rows), 0) {}

void NeighbourLists::offer(Index row, double key, std::int64_t index) {
  Index& count = counts_[static_cast<std::size_t>(row)];
  const auto before = [&](Index t) {  // (key, index) precedes the t-th kept candidate
    const double kept = keys_[slot(row, t)];
    return key < kept || (key == kept && index < indices_[slot(row, t)]);
  };
  if (count == k_ && !before(k_ - 1)) return;
  // Insertion into a short sorted list: k is small, so a shift beats a heap and keeps the order.
  Index t = count < k_ ? count++ : k_ - 1;
  for (; t > 0 && before(t - 1); --t) {
    keys_[slot(row, t)] = keys_[slot(row, t - 1)];
    indices_[slot(row, t)] = indices_[slot(row, t - 1)];
  }
  keys_[slot(row, t)] = key;
  indices_[slot(row, t)] = index;
}

void NeighbourLists::load(Index row, const double* keys, const std::int64_t* indices, Index count) {
  for (Index t = 0; t < count; ++t) {
    keys_[slot(row, t)] = keys[t];
    indices_[slot(row, t)] = indices[t];
  }
  counts_[static_cast<std::size_t>(row)] = count;
}

KnnGraph NeighbourLists::to_graph(std::uint64_t num_rows, std::uint64_t first_row,
                                  double (*to_distance)(double)) const {
  KnnGraph graph{num_rows, first_row, k_, IndexMatrix(rows_, k_), RowMatrix(rows_, k_)};
  for (Index i = 0; i < rows_; ++i) {
    if (count(i) < k_)
      throw Error("neighbour search found " + std::to_string(count(i)) + " of " + std::to_string(k_) +
                  " neighbours for row " + std::to_string(first_row + static_cast<std::uint64_t>(i)));
    for (Index t = 0; t < k_; ++t) {
      graph.neighbours(i, t) = index(i, t);
      graph.distances(i, t) = to_distance(key(i, t));
    }
  }
  return graph;
}

}  // namespace gplvm

#pragma once
// The k best candidates per query row seen so far, under the order of (key, global index): the
// running state of every neighbour search in this layer. The k best under a total order do not
// depend on the order candidates are offered in, which is what makes the searches independent of
// the rank count.
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/knn_graph.hpp"

namespace gplvm {

class NeighbourLists {
 public:
  NeighbourLists(Index rows, Index k);
  Index rows() const noexcept { return rows_; }
  Index k() const noexcept { return k_; }
  // Keeps (key, index) for `row` if it is among the k best offered so far.
  void offer(Index row, double key, std::int64_t index);
  // False when offer(row, key, ...) would certainly keep nothing: a test cheap enough to inline
  // before the call, which most candidates of an exact search fail.
  bool may_keep(Index row, double key) const {
    return counts_[static_cast<std::size_t>(row)] < k_ || key <= keys_[slot(row, k_ - 1)];
  }
  // Lists already held elsewhere (a travelling block): row i's `count` best, best first.
  void load(Index row, const double* keys, const std::int64_t* indices, Index count);
  Index count(Index row) const { return counts_[static_cast<std::size_t>(row)]; }
  double key(Index row, Index t) const { return keys_[slot(row, t)]; }
  std::int64_t index(Index row, Index t) const { return indices_[slot(row, t)]; }
  // The lists as a KnnGraph, each key turned into a distance by `to_distance` (the square root
  // where keys are squared distances). Every list must be full.
  KnnGraph to_graph(std::uint64_t num_rows, std::uint64_t first_row, double (*to_distance)(double)) const;

 private:
  std::size_t slot(Index row, Index t) const { return static_cast<std::size_t>(row * k_ + t); }
  Index rows_, k_;
  std::vector<double> keys_;
  std::vector<std::int64_t> indices_;
  std::vector<Index> counts_;
};

}  // namespace gplvm

#pragma once
// Data and independent references for the graph layer's tests: rows split as RowPartition splits
// them, a brute-force k-NN by exact differences, and a distributed graph gathered to a dense matrix.
#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/core/types.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm::testing {

inline RowMatrix gaussian_rows(Index n, Index d, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  RowMatrix rows(n, d);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < d; ++j) rows(i, j) = normal(engine);
  return rows;
}

// Three well separated blocks of Gaussian rows (sizes a, b, c), centred 100 apart.
inline RowMatrix three_clusters(Index a, Index b, Index c, Index d, unsigned seed) {
  RowMatrix rows = gaussian_rows(a + b + c, d, seed);
  rows.middleRows(a, b).col(0).array() += 100.0;
  rows.bottomRows(c).col(1).array() += 100.0;
  return rows;
}

// This rank's block of `all` under RowPartition.
inline RowMatrix local_block(const RowMatrix& all, const Communicator& comm) {
  const RowPartition partition(static_cast<std::uint64_t>(all.rows()), comm.size());
  return all.middleRows(static_cast<Index>(partition.begin(comm.rank())),
                        static_cast<Index>(partition.count(comm.rank())));
}

// For each row of `all`: its k nearest other rows by (squared distance from exact differences,
// index), the tie rule the layer states.
inline std::vector<std::vector<std::pair<double, Index>>> brute_force_neighbours(const RowMatrix& all,
                                                                                 Index k) {
  std::vector<std::vector<std::pair<double, Index>>> out(static_cast<std::size_t>(all.rows()));
  for (Index i = 0; i < all.rows(); ++i) {
    auto& list = out[static_cast<std::size_t>(i)];
    for (Index j = 0; j < all.rows(); ++j)
      if (j != i) list.push_back({(all.row(i) - all.row(j)).squaredNorm(), j});
    std::sort(list.begin(), list.end());
    list.resize(static_cast<std::size_t>(k));
  }
  return out;
}

// The whole graph as a dense n x n matrix of weights on every rank (0 where there is no edge), and
// the pattern of its edges (1 where there is one, whatever the weight).
inline std::pair<Matrix, Matrix> dense_graph(const SparseGraph& graph, const Communicator& comm) {
  RowMatrix weights = RowMatrix::Zero(graph.local_rows(), static_cast<Index>(graph.num_rows));
  RowMatrix pattern = weights;
  for (Index i = 0; i < graph.local_rows(); ++i)
    for (std::int64_t e = graph.row_begin(i); e < graph.row_end(i); ++e) {
      weights(i, graph.columns[static_cast<std::size_t>(e)]) = graph.weights[static_cast<std::size_t>(e)];
      pattern(i, graph.columns[static_cast<std::size_t>(e)]) = 1.0;
    }
  return {comm.allgather_rows(DataRef(weights)), comm.allgather_rows(DataRef(pattern))};
}

// What `f` threw: the InputError's message and key, or "no error" for both. Collective checks throw
// on every rank, so a test that calls this on every rank also shows that none was left waiting.
struct ThrownInput {
  std::string message, key;
};
template <class F>
ThrownInput input_error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return {e.what(), e.context().key};
  }
  return {"no error", "no error"};
}

}  // namespace gplvm::testing

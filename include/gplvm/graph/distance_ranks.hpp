#pragma once
// Where given rows stand in each row's ordering of all the others by Euclidean distance, without
// an n x n matrix: what trustworthiness and continuity need beyond the k-NN graphs
// (eval/embedding_metrics.hpp).
//
// The rank of target j of row i is its position, from 1, among all rows l != i ordered by (squared
// distance from i, then global index): 1 + #{l != i : d(i, l) < d(i, j), or d(i, l) = d(i, j) and
// l < j}; the k nearest neighbours (exact_neighbours) are ranks 1..k. Distances are the squared
// product-form ones of squared_distances.hpp, every entry a function of its two rows alone, so the
// ranks are the same at any rank count.
//
// Cost: every rank's rows pass every rank once (a ring, two blocks held), O(n^2 D / P) flops and
// O(n^2 t / P) comparisons for t targets per row.
#include "gplvm/core/types.hpp"
#include "gplvm/graph/knn_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// For each local row (rows split as RowPartition splits them) and each of its targets (global rows,
// one row of `targets` per local row, any count per row), the rank above. Collective.
IndexMatrix distance_ranks(const DataRef& local, const IndexMatrix& targets, const Communicator& comm);

}  // namespace gplvm

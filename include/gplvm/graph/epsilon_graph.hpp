#pragma once
// The epsilon-neighbourhood graph: an edge between every two distinct rows closer than epsilon
// (Laplacian eigenmaps' A_ij = 1(||y_i - y_j|| < epsilon)), exact.
#include "gplvm/core/types.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// Pairs whose squared distance (computed as exact_neighbours computes it, exact_neighbours.hpp) is
// below epsilon^2, weighted by `weighting` (collective). The rows travel around a ring of the ranks
// as in exact_neighbours; memory per rank is its rows, one visiting block, a (local rows x 256)
// distance tile and its edges. The graph is symmetric and, like the distances, the same at any rank
// count. Errors: epsilon <= 0 or not finite (graph.epsilon), NaN or Inf rows (the row).
SparseGraph epsilon_graph(const DataRef& local, double epsilon, const EdgeWeighting& weighting,
                          const Communicator& comm);

}  // namespace gplvm

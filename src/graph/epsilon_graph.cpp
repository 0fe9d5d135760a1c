#include "gplvm/graph/epsilon_graph.hpp"

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/input_checks.hpp"
#include "gplvm/graph/squared_distances.hpp"
#include "ring_pass.hpp"

namespace gplvm {

SparseGraph epsilon_graph(const DataRef& local, double epsilon, const EdgeWeighting& weighting,
                          const Communicator& comm) {
  require(std::isfinite(epsilon) && epsilon > 0.0, "graph.epsilon must be positive and finite",
          {"", "graph.epsilon", std::to_string(epsilon)});
  const RowPartition partition = partition_of_rows(local, comm);
  const std::uint64_t first = partition.begin(comm.rank());
  require_finite_rows(local, first, comm);
  const Vector norms = row_squared_norms(local);
  const double limit = epsilon * epsilon;
  std::vector<Edge> edges;
  RingPass ring(local, partition, comm);
  for (int step = 0; step < comm.size(); ++step) {
    if (step > 0) ring.shift();
    const auto visiting_first = static_cast<std::int64_t>(ring.first_row());
    for_each_distance_tile(local, norms, ring.block(), [&](const RowMatrix& tile, Index start, Index rows) {
      for (Index i = 0; i < local.rows(); ++i)
        for (Index j = 0; j < rows; ++j) {
          const auto row = static_cast<std::int64_t>(first) + i, column = visiting_first + start + j;
          if (column != row && tile(i, j) < limit)
            edges.push_back({row, column, weighting(std::sqrt(tile(i, j)))});
        }
    });
  }
  return graph_from_edges(partition.num_rows(), first, local.rows(), std::move(edges));
}

}  // namespace gplvm

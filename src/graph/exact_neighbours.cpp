#include "gplvm/graph/exact_neighbours.hpp"

#include <cmath>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/input_checks.hpp"
#include "gplvm/graph/squared_distances.hpp"
#include "neighbour_lists.hpp"
#include "ring_pass.hpp"
#include "search_progress.hpp"

namespace gplvm {
namespace {

double square_root(double x) {
  return std::sqrt(x);
}
double identity(double x) {
  return x;
}

// Offers every row of `reference` (global indices from reference_first) to every query's list,
// leaving out a query's own global index (query_first + i; pass -1 to leave out nothing).
void offer_block(const DataRef& queries, const Vector& query_norms, std::int64_t query_first,
                 const DataRef& reference, std::int64_t reference_first, NeighbourLists& lists) {
  for_each_distance_tile(queries, query_norms, reference,
                         [&](const RowMatrix& tile, Index start, Index rows) {
                           for (Index i = 0; i < queries.rows(); ++i) {
                             const std::int64_t self = query_first < 0 ? -1 : query_first + i;
                             for (Index j = 0; j < rows; ++j) {
                               const std::int64_t index = reference_first + start + j;
                               if (index != self && lists.may_keep(i, tile(i, j)))
                                 lists.offer(i, tile(i, j), index);
                             }
                           }
                         });
}

}  // namespace

KnnGraph exact_neighbours(const DataRef& local, Index k, const Communicator& comm, const std::string& key) {
  const RowPartition partition = partition_of_rows(local, comm);
  require_neighbour_count(k, partition.num_rows(), key);
  const std::uint64_t first = partition.begin(comm.rank());
  require_finite_rows(local, first, comm);
  const Vector norms = row_squared_norms(local);
  NeighbourLists lists(local.rows(), k);
  RingPass ring(local, partition, comm);
  const SearchProgress progress("exact", comm);
  for (int step = 0; step < comm.size(); ++step) {
    if (step > 0) ring.shift();
    offer_block(local, norms, static_cast<std::int64_t>(first), ring.block(),
                static_cast<std::int64_t>(ring.first_row()), lists);
    progress.report("rank 0's rows compared with block " + std::to_string(step + 1) + " of " +
                    std::to_string(comm.size()));
  }
  return lists.to_graph(partition.num_rows(), first, square_root);
}

KnnGraph query_neighbours(const DataRef& reference, const DataRef& queries, Index k, const std::string& key) {
  require(k >= 1 && k <= reference.rows(), key + " must be between 1 and the number of reference rows",
          {"", key, std::to_string(k)});
  require(reference.cols() == queries.cols(), "reference and query rows differ in width",
          {"", key, std::to_string(queries.cols())});
  NeighbourLists lists(queries.rows(), k);
  offer_block(queries, row_squared_norms(queries), -1, reference, 0, lists);
  return lists.to_graph(static_cast<std::uint64_t>(reference.rows()), 0, square_root);
}

KnnGraph neighbours_from_distances(const ConstMatrixRef& distances, Index k, const std::string& key) {
  const Index n = distances.rows();
  require(distances.cols() == n, "the distance matrix must be square", {"", key, std::to_string(n)});
  require_neighbour_count(k, static_cast<std::uint64_t>(n), key);
  NeighbourLists lists(n, k);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < n; ++j)
      if (j != i) lists.offer(i, distances(i, j), j);
  return lists.to_graph(static_cast<std::uint64_t>(n), 0, identity);
}

}  // namespace gplvm

#include "gplvm/graph/distance_ranks.hpp"

#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/input_checks.hpp"
#include "gplvm/graph/squared_distances.hpp"
#include "gplvm/parallel/remote_rows.hpp"
#include "ring_pass.hpp"

namespace gplvm {
namespace {

// d(i, j)^2 for every target: the target rows fetched from their owners, each distance computed by
// the same function of the two rows as the ring's tiles (bit for bit).
RowMatrix target_distances(const DataRef& local, const Vector& norms, const IndexMatrix& targets,
                           std::uint64_t num_rows, const Communicator& comm) {
  const std::vector<std::int64_t> wanted(targets.data(), targets.data() + targets.size());
  const RowMatrix rows = fetch_rows(local, num_rows, wanted, comm);
  const Vector row_norms = row_squared_norms(rows);
  RowMatrix out(targets.rows(), targets.cols());
  for (Index i = 0; i < targets.rows(); ++i)
    for (Index t = 0; t < targets.cols(); ++t) {
      const Index at = i * targets.cols() + t;
      out(i, t) =
          squared_distance(local.row(i).data(), norms[i], rows.row(at).data(), row_norms[at], local.cols());
    }
  return out;
}

}  // namespace

IndexMatrix distance_ranks(const DataRef& local, const IndexMatrix& targets, const Communicator& comm) {
  const RowPartition partition = partition_of_rows(local, comm);
  require(targets.rows() == local.rows(), "distance ranks need one row of targets per local row",
          {"", "targets", std::to_string(targets.rows())});
  const std::uint64_t first = partition.begin(comm.rank());
  const Vector norms = row_squared_norms(local);
  const RowMatrix thresholds = target_distances(local, norms, targets, partition.num_rows(), comm);
  IndexMatrix ranks = IndexMatrix::Ones(targets.rows(), targets.cols());
  RingPass ring(RowMatrix(local), partition, comm);
  for (int step = 0; step < comm.size(); ++step) {
    const std::uint64_t block_first = ring.first_row();
    for_each_distance_tile(local, norms, ring.block(), [&](const RowMatrix& tile, Index start, Index rows) {
      for (Index i = 0; i < tile.rows(); ++i) {
        const auto self = static_cast<std::int64_t>(first) + i;
        for (Index c = 0; c < rows; ++c) {
          const auto l = static_cast<std::int64_t>(block_first) + start + c;
          if (l == self) continue;
          const double d = tile(i, c);
          for (Index t = 0; t < targets.cols(); ++t) {
            const double threshold = thresholds(i, t);
            if (d < threshold || (d == threshold && l < targets(i, t))) ++ranks(i, t);
          }
        }
      }
    });
    ring.shift();
  }
  return ranks;
}

}  // namespace gplvm

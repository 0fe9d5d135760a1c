#include "gplvm/graph/input_checks.hpp"

#include <cmath>
#include <limits>

#include "gplvm/core/error.hpp"

namespace gplvm {

RowPartition partition_of_rows(const DataRef& local, const Communicator& comm) {
  const auto n = static_cast<std::uint64_t>(comm.allreduce_sum(static_cast<std::int64_t>(local.rows())));
  const RowPartition partition(n, comm.size());
  std::string problem;
  if (static_cast<std::uint64_t>(local.rows()) != partition.count(comm.rank()))
    problem = "rank " + std::to_string(comm.rank()) + " holds " + std::to_string(local.rows()) +
              " rows, not its block of " + std::to_string(partition.count(comm.rank())) +
              " (rows must be split as RowPartition splits them)";
  // Every rank joins both reductions, whatever it found above.
  const auto width = static_cast<std::int64_t>(local.cols());
  const bool same_width = comm.allreduce_max(width) == width && comm.allreduce_min(width) == width;
  if (problem.empty() && !same_width) problem = "the ranks hold rows of different widths";
  comm.agree_on_problem(problem, "rows");
  return partition;
}

void require_finite_rows(const DataRef& local, std::uint64_t first_row, const Communicator& comm) {
  std::int64_t bad = -1;
  for (Index i = 0; i < local.rows() && bad < 0; ++i)
    if (!local.row(i).allFinite()) bad = static_cast<std::int64_t>(first_row) + i;
  // The lowest bad row over all ranks, so that the message is the same whichever rank found it.
  const std::int64_t none = std::numeric_limits<std::int64_t>::max();
  const std::int64_t first_bad = comm.allreduce_min(bad < 0 ? none : bad);
  if (first_bad != none)
    throw InputError("row " + std::to_string(first_bad) + " of the data is not finite (NaN or Inf)",
                     {"", "rows", std::to_string(first_bad)});
}

void require_neighbour_count(Index k, std::uint64_t num_rows, const std::string& key) {
  require(k >= 1 && static_cast<std::uint64_t>(k) < num_rows,
          key + " must be at least 1 and below the number of rows (" + std::to_string(num_rows) + ")",
          {"", key, std::to_string(k)});
}

}  // namespace gplvm

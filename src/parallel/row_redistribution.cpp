#include "gplvm/parallel/row_redistribution.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {
namespace {

std::uint64_t overlap(std::uint64_t a0, std::uint64_t a1, std::uint64_t b0, std::uint64_t b1) {
  const std::uint64_t lo = std::max(a0, b0), hi = std::min(a1, b1);
  return hi > lo ? hi - lo : 0;
}

}  // namespace

RowMatrix rebalance_rows(const Communicator& comm, const DataRef& local, std::uint64_t offset,
                         std::uint64_t total) {
  const RowPartition target(total, comm.size());
  std::vector<std::uint64_t> begins;
  for (int r = 0; r <= comm.size(); ++r) begins.push_back(target.begin(r));
  return redistribute_rows(comm, local, offset, total, begins);
}

RowMatrix redistribute_rows(const Communicator& comm, const DataRef& local, std::uint64_t offset,
                            std::uint64_t total, const std::vector<std::uint64_t>& target_begins) {
  const int p = comm.size();
  require(static_cast<int>(target_begins.size()) == p + 1 && target_begins.front() == 0 &&
              target_begins.back() == total && std::is_sorted(target_begins.begin(), target_begins.end()),
          "the target row layout does not cover the sequence in rank order",
          {"", "rows", std::to_string(total)});
  const Index cols = local.cols();
  // Everyone's current ranges.
  RowMatrix mine(1, 2);
  mine << static_cast<double>(offset), static_cast<double>(local.rows());
  const RowMatrix ranges = comm.allgather_rows(DataRef(mine));
  std::uint64_t covered = 0;
  for (int r = 0; r < p; ++r) covered += static_cast<std::uint64_t>(ranges(r, 1));
  require(covered == total, "row ranges do not cover the sequence", {"", "rows", std::to_string(covered)});

  const auto target_begin = [&](int r) { return target_begins[static_cast<std::size_t>(r)]; };
  const std::uint64_t my_end = offset + local.rows();
  std::vector<int> send_counts(p), send_displs(p), receive_counts(p), receive_displs(p);
  for (int r = 0; r < p; ++r) {
    send_counts[r] = static_cast<int>(overlap(offset, my_end, target_begin(r), target_begin(r + 1)) * cols);
    const auto src_begin = static_cast<std::uint64_t>(ranges(r, 0));
    const auto src_end = src_begin + static_cast<std::uint64_t>(ranges(r, 1));
    receive_counts[r] = static_cast<int>(
        overlap(src_begin, src_end, target_begin(comm.rank()), target_begin(comm.rank() + 1)) * cols);
  }
  std::exclusive_scan(send_counts.begin(), send_counts.end(), send_displs.begin(), 0);
  std::exclusive_scan(receive_counts.begin(), receive_counts.end(), receive_displs.begin(), 0);
  const RowMatrix contiguous = local;
  RowMatrix out(static_cast<Index>(target_begin(comm.rank() + 1) - target_begin(comm.rank())), cols);
  comm.alltoallv(contiguous.data(), send_counts, send_displs, out.data(), receive_counts, receive_displs);
  return out;
}

}  // namespace gplvm

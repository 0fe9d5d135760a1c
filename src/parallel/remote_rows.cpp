#include "gplvm/parallel/remote_rows.hpp"

#include <numeric>

#include "gplvm/core/error.hpp"
#include "gplvm/parallel/exchange_counts.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

RowMatrix fetch_rows(const DataRef& local, std::uint64_t num_rows, const std::vector<std::int64_t>& wanted,
                     const Communicator& comm) {
  const RowPartition partition(num_rows, comm.size());
  const auto ranks = static_cast<std::size_t>(comm.size());
  const Index width = local.cols();
  // The requests grouped by owner, remembering where each answer goes.
  std::vector<int> request_counts(ranks, 0);
  for (std::int64_t row : wanted) {
    require(row >= 0 && static_cast<std::uint64_t>(row) < num_rows, "a requested row is out of range",
            {"", "rows", std::to_string(row)});
    ++request_counts[static_cast<std::size_t>(partition.owner(static_cast<std::uint64_t>(row)))];
  }
  const std::vector<int> request_displs = offsets_of(request_counts);
  std::vector<int> fill = request_displs;
  std::vector<std::int64_t> requests(wanted.size());
  std::vector<std::size_t> position(wanted.size());
  for (std::size_t t = 0; t < wanted.size(); ++t) {
    const auto owner = static_cast<std::size_t>(partition.owner(static_cast<std::uint64_t>(wanted[t])));
    position[t] = static_cast<std::size_t>(fill[owner]++);
    requests[position[t]] = wanted[t];
  }
  const std::vector<int> serve_counts = receive_counts(request_counts, comm);
  const std::vector<int> serve_displs = offsets_of(serve_counts);
  std::vector<std::int64_t> serve(static_cast<std::size_t>(serve_displs.back() + serve_counts.back()));
  comm.alltoallv(requests.data(), request_counts, request_displs, serve.data(), serve_counts, serve_displs);

  // The rows asked of this rank, then back in the requests' order.
  const auto first = static_cast<std::int64_t>(partition.begin(comm.rank()));
  RowMatrix served(static_cast<Index>(serve.size()), width);
  for (std::size_t s = 0; s < serve.size(); ++s)
    served.row(static_cast<Index>(s)) = local.row(serve[s] - first);
  auto scaled = [width](std::vector<int> v) {
    for (int& x : v) x *= static_cast<int>(width);
    return v;
  };
  RowMatrix received(static_cast<Index>(wanted.size()), width);
  comm.alltoallv(served.data(), scaled(serve_counts), scaled(serve_displs), received.data(),
                 scaled(request_counts), scaled(request_displs));
  RowMatrix out(static_cast<Index>(wanted.size()), width);
  for (std::size_t t = 0; t < wanted.size(); ++t)
    out.row(static_cast<Index>(t)) = received.row(static_cast<Index>(position[t]));
  return out;
}

}  // namespace gplvm

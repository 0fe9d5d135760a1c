#include "gplvm/models/local_rows_check.hpp"

#include <limits>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {

template <typename Scalar>
void check_local_rows(const Communicator& comm, const RowPartition& partition,
                      const DataRefT<Scalar>& local_data, Index data_dim) {
  require(partition.num_ranks() == comm.size(), "row partition was made for a different rank count",
          {"", "ranks", std::to_string(partition.num_ranks())});
  require(static_cast<std::uint64_t>(local_data.rows()) == partition.count(comm.rank()),
          "local data block does not match this rank's rows",
          {"", "rows", std::to_string(local_data.rows())});
  require(local_data.cols() == data_dim, "local data has the wrong number of columns",
          {"", "data_dim", std::to_string(local_data.cols())});
  const Index bad = first_non_finite_row<Scalar>(local_data);
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
  const std::int64_t first_bad =
      comm.allreduce_min(bad < 0 ? kNone : static_cast<std::int64_t>(partition.begin(comm.rank())) + bad);
  if (first_bad != kNone)
    throw InputError("data row contains NaN or Inf", {"", "row", std::to_string(first_bad)});
}

template void check_local_rows<double>(const Communicator&, const RowPartition&, const DataRefT<double>&,
                                       Index);
template void check_local_rows<float>(const Communicator&, const RowPartition&, const DataRefT<float>&,
                                      Index);

}  // namespace gplvm

#include "method_inputs.hpp"

#include <algorithm>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/input_checks.hpp"

namespace gplvm {

RowPartition checked_rows(const DataRef& local_data, const Communicator& comm) {
  const RowPartition partition = partition_of_rows(local_data, comm);
  require_finite_rows(local_data, partition.begin(comm.rank()), comm);
  return partition;
}

void require_dense_limit(std::uint64_t num_rows, const ProbdrSettings& settings, const std::string& method) {
  require(
      num_rows <= static_cast<std::uint64_t>(std::max<Index>(settings.dense_limit, 0)),
      method + " holds an n x n matrix (n = " + std::to_string(num_rows) +
          " rows), more than probdr.dense_limit allows; raise the limit if the memory is there (8 n^2 / P "
          "bytes per rank)",
      {"", "probdr.dense_limit", std::to_string(settings.dense_limit)});
}

double degrees_of_freedom(const ProbdrSettings& settings, double method_default) {
  return settings.degrees_of_freedom > 0 ? settings.degrees_of_freedom : method_default;
}

Matrix scaled_eigenvectors(const Matrix& local_vectors, const Vector& eigenvalues) {
  return local_vectors * eigenvalues.cwiseMax(0.0).cwiseSqrt().asDiagonal();
}

}  // namespace gplvm

#include "double_centring.hpp"

#include <vector>

namespace gplvm {

void double_centre(Matrix& local_rows, const Communicator& comm) {
  const Vector local_means = local_rows.rowwise().mean();
  const std::vector<double> means =
      comm.allgatherv(std::vector<double>(local_means.begin(), local_means.end()));
  const Eigen::Map<const Vector> row_means(means.data(), static_cast<Index>(means.size()));
  const double grand_mean = row_means.mean();
  // One pass over the block, each entry ((k - local mean) - column's mean) + grand mean.
  for (Index j = 0; j < local_rows.cols(); ++j)
    local_rows.col(j).array() = (local_rows.col(j).array() - local_means.array() - row_means[j]) + grand_mean;
}

}  // namespace gplvm

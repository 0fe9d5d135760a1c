#include "double_centring.hpp"

#include <vector>

namespace gplvm {

void double_centre(Matrix& local_rows, const Communicator& comm) {
  const Vector local_means = local_rows.rowwise().mean();
  const std::vector<double> means =
      comm.allgatherv(std::vector<double>(local_means.begin(), local_means.end()));
  const Eigen::Map<const Vector> row_means(means.data(), static_cast<Index>(means.size()));
  const double grand_mean = row_means.mean();
  local_rows.colwise() -= local_means;
  local_rows.rowwise() -= row_means.transpose();
  local_rows.array() += grand_mean;
}

}  // namespace gplvm

#include "gplvm/eval/manifold_reconstruction.hpp"

#include <cmath>

#include "gplvm/core/error.hpp"

namespace gplvm {

ManifoldReconstruction manifold_reconstruction(const Manifold& manifold, const DataRef& predicted,
                                               const DataRef& truth, const Communicator& comm) {
  require(predicted.rows() == truth.rows() && predicted.cols() == truth.cols(),
          "predicted and true points differ in shape", {"", "rows", std::to_string(predicted.rows())});
  Vector sums = Vector::Zero(3);  // squared intrinsic, squared Euclidean, count
  for (Index i = 0; i < truth.rows(); ++i) {
    const Vector p = predicted.row(i).transpose(), q = truth.row(i).transpose();
    sums[0] += std::pow(manifold.distance(p, q), 2);
    sums[1] += std::pow(manifold.ambient_distance(q, p), 2);
  }
  sums[2] = static_cast<double>(truth.rows());
  comm.allreduce_sum(sums.data(), sums.size());
  const double n = std::max(sums[2], 1.0);
  return {std::sqrt(sums[0] / n), std::sqrt(sums[1] / n), static_cast<std::uint64_t>(sums[2])};
}

double row_distance_rmse(const DataRef& predicted, const DataRef& truth, const Communicator& comm) {
  Vector sums{{(predicted - truth).squaredNorm(), static_cast<double>(truth.rows())}};
  comm.allreduce_sum(sums.data(), sums.size());
  return std::sqrt(sums[0] / std::max(sums[1], 1.0));
}

}  // namespace gplvm

#pragma once
// Reconstruction errors of points on an output manifold (docs/math/wrapped_gplvm.md): the RMSE of
// the intrinsic (geodesic) distance and of the Euclidean distance of the ambient coordinates
// (Manifold::ambient_distance) between predicted and true points, over all ranks' rows.
#include <cstdint>

#include "gplvm/core/types.hpp"
#include "gplvm/manifold/manifold.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct ManifoldReconstruction {
  double intrinsic_rmse = 0.0;  // sqrt(mean_i d_M(predicted_i, true_i)^2)
  double euclidean_rmse = 0.0;  // sqrt(mean_i |predicted_i - true_i|^2), ambient coordinates
  std::uint64_t points = 0;
};

// predicted and truth hold this rank's rows (points of `manifold`, n x data_dim). Collective.
ManifoldReconstruction manifold_reconstruction(const Manifold& manifold, const DataRef& predicted,
                                               const DataRef& truth, const Communicator& comm);

// The root of the mean squared Euclidean distance between rows, over all ranks (a Euclidean model's
// predictions before any projection). Collective.
double row_distance_rmse(const DataRef& predicted, const DataRef& truth, const Communicator& comm);

}  // namespace gplvm

#pragma once
// Coordinates in which curves on the latent space are written: R^Q itself, or, on a curved latent
// space (the sphere, the hyperboloid), Q tangent coordinates at the space's origin, mapped to points
// by its exponential map (LatentSpace::from_origin_tangent). A curve is then a curve in R^Q whatever
// the space, and the decoder sees its points in the ambient coordinates it was trained on; the
// energy's gradient returns through the map's adjoint. The chart covers the hyperboloid whole and
// the sphere but for the antipode of its origin (where a geodesic of the chart's own coordinates
// would have to pass through the cut point).
#include <memory>

#include "gplvm/core/types.hpp"
#include "gplvm/model/latent_space.hpp"

namespace gplvm {

class LatentChart {
 public:
  // The identity chart of R^Q.
  explicit LatentChart(Index dim);
  // The exponential chart at the origin of a curved space (kept by reference).
  explicit LatentChart(const LatentSpace& space);

  Index dim() const noexcept { return dim_; }
  bool is_identity() const noexcept { return space_ == nullptr; }

  // Points (n x ambient) at chart coordinates V (n x Q).
  Matrix points(const ConstMatrixRef& V) const;
  // dL/dV given dL/dX at X = points(V).
  Matrix backward(const ConstMatrixRef& V, const ConstMatrixRef& dX) const;
  // dX / dV at chart coordinates v (ambient x Q; the identity on R^Q), exactly, through the map's adjoint.
  Matrix jacobian(const Vector& v) const;
  // Chart coordinates of points (n x ambient): the logarithm at the origin in its tangent basis.
  Matrix coordinates(const ConstMatrixRef& X) const;

 private:
  Index dim_;
  const LatentSpace* space_ = nullptr;
  Vector origin_;
  Matrix basis_;  // the origin's tangent basis (ambient x Q), the one from_origin_tangent uses
};

}  // namespace gplvm

#pragma once
// What a Riemannian optimiser needs from the manifold its point parameters live on, for a block
// of points stored one per row (point_dim() coordinates each). optim/ sits below model/, so a
// latent space reaches the optimiser through this interface (models/latent_space_manifold.hpp
// adapts one); the optimiser knows no formula of any geometry.
#include "gplvm/core/types.hpp"

namespace gplvm {

class PointManifold {
 public:
  virtual ~PointManifold() = default;

  virtual Index point_dim() const = 0;
  // In place: the ambient (Euclidean) gradient G at X becomes the Riemannian gradient, a tangent
  // vector at each row of X.
  virtual void riemannian_gradient(const ConstMatrixRef& X, MatrixRef G) const = 0;
  // The squared length of each row of V, a tangent vector at the same row of X.
  virtual Vector squared_norms(const ConstMatrixRef& X, const ConstMatrixRef& V) const = 0;
  // Each row of X moved along the tangent step in the same row (the exponential map), staying on
  // the manifold.
  virtual void retract(MatrixRef X, const ConstMatrixRef& step) const = 0;
  // In place: each row of V, tangent at the same row of `from`, parallel-transported to `to`.
  virtual void transport(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) const = 0;
};

}  // namespace gplvm

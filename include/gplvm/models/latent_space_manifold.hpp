#pragma once
// A latent space as the manifold of a Riemannian optimiser's point parameters (free latents,
// inducing inputs): optim/ cannot see model/, so this adapter hands it the space's operations.
#include "gplvm/model/latent_space.hpp"
#include "gplvm/optim/point_manifold.hpp"

namespace gplvm {

class LatentSpaceManifold final : public PointManifold {
 public:
  explicit LatentSpaceManifold(const LatentSpace& space) : space_(space) {}  // must outlive this

  Index point_dim() const override { return space_.ambient_dim(); }
  void riemannian_gradient(const ConstMatrixRef& X, MatrixRef G) const override {
    space_.riemannian_gradient(X, G);
  }
  Vector squared_norms(const ConstMatrixRef& X, const ConstMatrixRef& V) const override {
    return space_.tangent_squared_norms(X, V);
  }
  void retract(MatrixRef X, const ConstMatrixRef& step) const override { space_.retract(X, step); }
  void transport(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) const override {
    space_.transport(from, to, V);
  }

 private:
  const LatentSpace& space_;
};

}  // namespace gplvm

#pragma once
// The unit sphere S^Q as a latent space: a latent is stored as a unit vector in R^{Q+1}
// (manifold/sphere_manifold.hpp is its geometry, manifold/sphere_geometry.hpp has the formulas;
// docs/math/sphere_latents.md derives them), for data with a periodic or directional factor
// (Q = 1: a circle).
//   - origin: the north pole e_0 = (1, 0, ..., 0); from_origin_tangent is the exponential map there
//     of the tangent vector (0, v).
// Bayesian latents are not defined here (no posterior family: has_posterior() is false): the
// posterior maps throw InputError naming model.latent_space.
// Ambient adjoints are exact along tangent directions; their normal component is arbitrary and
// removed by riemannian_gradient.
#include "gplvm/manifold/sphere_manifold.hpp"
#include "gplvm/model/latent_space.hpp"

namespace gplvm {

class SphereLatentSpace final : public LatentSpace {
 public:
  explicit SphereLatentSpace(Index intrinsic_dim);

  const Manifold& manifold() const override { return manifold_; }
  std::string coordinates_note() const override { return "on the unit sphere (unit vectors in R^{Q+1})"; }
  bool has_posterior() const override { return false; }
  void from_origin_tangent(const ConstMatrixRef& V, Matrix& X) const override;
  void from_origin_tangent_backward(const ConstMatrixRef& V, const ConstMatrixRef& dX,
                                    MatrixRef dV) const override;
  // Q + 1 principal components, each row projected radially onto the sphere (a zero row to the
  // origin e_0).
  Index start_components() const override { return dim_ + 1; }
  void from_start_components(const ConstMatrixRef& P, Matrix& X) const override;
  // Throw InputError (no posterior family on the sphere; see the file comment).
  void sample_posterior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                        const ConstMatrixRef& eps, Matrix& X) const override;
  void sample_posterior_backward(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                 const ConstMatrixRef& eps, const ConstMatrixRef& dX, MatrixRef d_location,
                                 MatrixRef d_variance) const override;
  bool has_closed_form_kl() const override { return false; }
  double kl_to_prior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                     const ConstMatrixRef& samples) const override;
  void kl_to_prior_backward(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                            const ConstMatrixRef& samples, double scale, MatrixRef d_location,
                            MatrixRef d_variance, Matrix* d_samples) const override;

 private:
  Index dim_;
  SphereManifold manifold_;
};

}  // namespace gplvm

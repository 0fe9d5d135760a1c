#pragma once
// The unit sphere S^Q as a latent space (model.latent_space = "sphere"): a latent is stored as a
// unit vector in R^{Q+1} (sphere_geometry.hpp has the formulas; docs/math/sphere_latents.md
// derives them), for data with a periodic or directional factor (Q = 1: a circle).
//   - origin: the north pole e_0 = (1, 0, ..., 0); from_origin_tangent is the exponential map there
//     of the tangent vector (0, v);
//   - riemannian_gradient: the ambient gradient projected onto the tangent space, g - <g, x> x
//     (the round metric is the Euclidean one restricted to tangent vectors);
//   - retract: the exponential map along the (re-projected) tangent step, then normalisation, so
//     rounding cannot accumulate over many steps;
//   - transport: parallel transport along the minimising geodesic.
// Bayesian latents are not defined here (no posterior family: has_posterior() is false): the
// posterior maps throw InputError naming model.latent_space.
// Ambient adjoints are exact along tangent directions; their normal component is arbitrary and
// removed by riemannian_gradient.
#include "gplvm/model/latent_space.hpp"

namespace gplvm {

class SphereLatentSpace final : public LatentSpace {
 public:
  explicit SphereLatentSpace(Index intrinsic_dim);

  std::string name() const override { return "sphere"; }
  Index intrinsic_dim() const override { return dim_; }
  Index ambient_dim() const override { return dim_ + 1; }
  std::string coordinates_note() const override { return "on the unit sphere (unit vectors in R^{Q+1})"; }
  bool has_posterior() const override { return false; }
  Index first_row_outside(const ConstMatrixRef& X, double tolerance) const override;
  Matrix distances(const ConstMatrixRef& A, const ConstMatrixRef& B) const override;

  void from_origin_tangent(const ConstMatrixRef& V, Matrix& X) const override;
  void from_origin_tangent_backward(const ConstMatrixRef& V, const ConstMatrixRef& dX,
                                    MatrixRef dV) const override;
  // Q + 1 principal components, each row projected radially onto the sphere (a zero row to the
  // origin e_0).
  Index start_components() const override { return dim_ + 1; }
  void from_start_components(const ConstMatrixRef& P, Matrix& X) const override;
  void riemannian_gradient(const ConstMatrixRef& X, MatrixRef G) const override;
  void retract(MatrixRef X, const ConstMatrixRef& step) const override;
  Vector tangent_squared_norms(const ConstMatrixRef& X, const ConstMatrixRef& V) const override;
  void transport(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) const override;

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
};

}  // namespace gplvm

#pragma once
// The hyperboloid (Lorentz) model of hyperbolic space H^Q as a latent space: a latent is stored as
// Q + 1 ambient coordinates, time-like first, on <x, x>_L = -1 (manifold/lorentz_manifold.hpp is
// its geometry, manifold/lorentz_geometry.hpp has the formulas; docs/math/lorentz.md derives them).
//   - from_origin_tangent: the exponential map at the origin o of the tangent vector (0, v);
//   - sample_posterior: the wrapped normal (Nagano et al. 2019): v ~ N(0, diag(variance)) in the
//     tangent space at o, parallel-transported to the location and mapped by its exponential map;
//   - kl_to_prior: the one-sample Monte Carlo estimate log q(x) - log p(x) at the given samples,
//     with the wrapped normal's density and the standard wrapped normal at o as the prior.
// Ambient adjoints are exact along tangent directions, the only ones the hyperboloid has; their
// normal component is arbitrary and removed by riemannian_gradient.
#include "gplvm/manifold/lorentz_manifold.hpp"
#include "gplvm/model/latent_space.hpp"

namespace gplvm {

class LorentzLatentSpace final : public LatentSpace {
 public:
  explicit LorentzLatentSpace(Index intrinsic_dim);

  const Manifold& manifold() const override { return manifold_; }
  std::string coordinates_note() const override { return "on the hyperboloid (Lorentz coordinates)"; }
  void from_origin_tangent(const ConstMatrixRef& V, Matrix& X) const override;
  void from_origin_tangent_backward(const ConstMatrixRef& V, const ConstMatrixRef& dX,
                                    MatrixRef dV) const override;
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
  // The slope of log p at the location along the transported tangent sample
  // (lorentz::standard_wrapped_normal_log_density_slope_rows): minus the estimate's term linear in
  // eps, of zero mean (docs/math/lorentz.md).
  double kl_control_variate(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                            const ConstMatrixRef& eps) const override;
  void kl_control_variate_backward(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                   const ConstMatrixRef& eps, double scale, MatrixRef d_location,
                                   MatrixRef d_variance) const override;

 private:
  Index dim_;
  LorentzManifold manifold_;
};

}  // namespace gplvm

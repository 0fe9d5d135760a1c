#pragma once
// R^Q with the standard normal prior: every map is the identity or a closed form, so models on
// it cost nothing beyond the plain Euclidean formulas (the reparameterisation
// x = mu + sqrt(v) o eps and the analytic KL of gaussian_kl.hpp). Its geometry is
// manifold/euclidean_manifold.hpp's.
#include "gplvm/manifold/euclidean_manifold.hpp"
#include "gplvm/model/latent_space.hpp"

namespace gplvm {

class EuclideanLatentSpace final : public LatentSpace {
 public:
  explicit EuclideanLatentSpace(Index dim);

  const Manifold& manifold() const override { return manifold_; }

  void from_origin_tangent(const ConstMatrixRef& V, Matrix& X) const override;
  void from_origin_tangent_backward(const ConstMatrixRef& V, const ConstMatrixRef& dX,
                                    MatrixRef dV) const override;
  void sample_posterior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                        const ConstMatrixRef& eps, Matrix& X) const override;
  void sample_posterior_backward(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                                 const ConstMatrixRef& eps, const ConstMatrixRef& dX, MatrixRef d_location,
                                 MatrixRef d_variance) const override;
  bool has_closed_form_kl() const override { return true; }
  double kl_to_prior(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                     const ConstMatrixRef& samples) const override;
  void kl_to_prior_backward(const ConstMatrixRef& location, const ConstMatrixRef& variance,
                            const ConstMatrixRef& samples, double scale, MatrixRef d_location,
                            MatrixRef d_variance, Matrix* d_samples) const override;

 private:
  EuclideanManifold manifold_;
};

}  // namespace gplvm

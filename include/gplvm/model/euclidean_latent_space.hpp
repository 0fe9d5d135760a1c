#pragma once
// R^Q with the standard normal prior: every map is the identity or a closed form, so models on
// it cost nothing beyond the plain Euclidean formulas (the reparameterisation
// x = mu + sqrt(v) o eps and the analytic KL of gaussian_kl.hpp).
#include "gplvm/model/latent_space.hpp"

namespace gplvm {

class EuclideanLatentSpace final : public LatentSpace {
 public:
  explicit EuclideanLatentSpace(Index dim);

  std::string name() const override { return "euclidean"; }
  Index intrinsic_dim() const override { return dim_; }
  Index ambient_dim() const override { return dim_; }
  Index first_row_outside(const ConstMatrixRef& X, double tolerance) const override;
  Matrix distances(const ConstMatrixRef& A, const ConstMatrixRef& B) const override;

  void from_origin_tangent(const ConstMatrixRef& V, Matrix& X) const override;
  void from_origin_tangent_backward(const ConstMatrixRef& V, const ConstMatrixRef& dX,
                                    MatrixRef dV) const override;
  void riemannian_gradient(const ConstMatrixRef& X, MatrixRef G) const override;
  void retract(MatrixRef X, const ConstMatrixRef& step) const override;
  Vector tangent_squared_norms(const ConstMatrixRef& X, const ConstMatrixRef& V) const override;
  void transport(const ConstMatrixRef& from, const ConstMatrixRef& to, MatrixRef V) const override;
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
  Index dim_;
};

}  // namespace gplvm

#pragma once
// Periodic (exp-sine-squared) kernel for circular latents (MacKay 1998), one lengthscale per
// latent dimension and one period shared by all of them:
//   k(x, x') = theta exp(-2 sum_q sin^2(pi (x_q - x'_q) / p) / l_q^2)
// parametrised by log theta, log l_q (q = 1..Q) and log p, in that order. Stationary.
// One period because circular latents are angles in one unit (p = 2 pi for radians); the
// lengthscales stay per dimension so that relevance can still be learnt (docs/math/kernels.md).
#include "gplvm/model/kernel.hpp"

namespace gplvm {

class PeriodicKernel final : public Kernel {
 public:
  // Throws InputError unless the variance, every lengthscale and the period are positive and Q >= 1.
  PeriodicKernel(double variance, const Vector& lengthscales, double period);

  std::unique_ptr<Kernel> clone() const override;
  std::string name() const override { return "periodic"; }
  bool is_stationary() const override { return true; }
  std::vector<NamedHyperparameter> named_hyperparameters() const override;
  Index input_dim() const override { return lengthscales_.size(); }
  Index num_hyperparameters() const override { return 2 + lengthscales_.size(); }
  std::string hyperparameter_name(Index i) const override;
  Vector hyperparameters() const override;
  void set_hyperparameters(const ConstVectorRef& values) override;

  double variance() const noexcept { return variance_; }
  const Vector& lengthscales() const noexcept { return lengthscales_; }
  double period() const noexcept { return period_; }

  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override;
  void diagonal(const ConstMatrixRef& X, Vector& k) const override;
  void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                      const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const override;
  void diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                         VectorRef d_hyper) const override;
  // d^2 k(x, x') / dx dx'^T at x' = x (kernel.hpp): theta diag(4 pi^2 / (p^2 l_q^2)).
  Matrix gradient_covariance(const ConstMatrixRef& x) const override;
  // With u_q = pi (x_q - z_q) / p and a_q = -(2 pi / p) sin(2 u_q) / l_q^2 (dk/dx_q = k a_q):
  // d^2 k(x, z) / dx dx^T = k (a a^T - diag((4 pi^2 / p^2) cos(2 u_q) / l_q^2)).
  std::vector<Matrix> input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const override;

 private:
  double variance_;
  Vector lengthscales_;
  double period_;
};

}  // namespace gplvm

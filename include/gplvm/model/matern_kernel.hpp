#pragma once
// Matern kernels of smoothness nu = 3/2 and nu = 5/2 with automatic relevance determination. With
// the scaled distance r = sqrt(sum_q (x_q - x'_q)^2 / l_q^2):
//   matern32: k = theta (1 + sqrt(3) r) exp(-sqrt(3) r)
//   matern52: k = theta (1 + sqrt(5) r + 5 r^2 / 3) exp(-sqrt(5) r)
// parametrised by log theta and log l_q (q = 1..Q), in that order (docs/math/kernels.md).
// Both are once (nu = 3/2) or twice (nu = 5/2) differentiable at r = 0, where the gradient with
// respect to the inputs is zero: the adjoints are written through k'(r) / r, finite at r = 0.
#include "gplvm/model/kernel.hpp"

namespace gplvm {

enum class MaternSmoothness { three_halves, five_halves };

class MaternArdKernel final : public Kernel {
 public:
  // Throws InputError unless the variance and every lengthscale are positive and Q >= 1.
  MaternArdKernel(MaternSmoothness smoothness, double variance, const Vector& lengthscales);

  std::unique_ptr<Kernel> clone() const override;
  std::string name() const override;  // "matern32" or "matern52"
  bool is_stationary() const override { return true; }
  std::vector<NamedHyperparameter> named_hyperparameters() const override;
  Index input_dim() const override { return lengthscales_.size(); }
  Index num_hyperparameters() const override { return 1 + lengthscales_.size(); }
  std::string hyperparameter_name(Index i) const override;
  Vector hyperparameters() const override;
  void set_hyperparameters(const ConstVectorRef& values) override;

  MaternSmoothness smoothness() const noexcept { return smoothness_; }
  double variance() const noexcept { return variance_; }
  const Vector& lengthscales() const noexcept { return lengthscales_; }

  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override;
  void diagonal(const ConstMatrixRef& X, Vector& k) const override;
  void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                      const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const override;
  void diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                         VectorRef d_hyper) const override;
  // d^2 k(x, x') / dx dx'^T at x' = x (kernel.hpp): theta diag(3 / l_q^2) (nu = 3/2) or theta diag(5 / (3
  // l_q^2)) (nu = 5/2).
  Matrix gradient_covariance(const ConstMatrixRef& x) const override;
  // With k = theta f(r), g = f'(r) / r and s = (x - z) / l^2 elementwise:
  // d^2 k(x, z) / dx dx^T = theta ((g'(r) / r) s s^T + g diag(1 / l^2)) (docs/math/kernels.md).
  std::vector<Matrix> input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const override;

 private:
  // Scaled distances r_ij between the rows of X1 and X2.
  Matrix scaled_distances(const ConstMatrixRef& X1, const ConstMatrixRef& X2) const;

  MaternSmoothness smoothness_;
  double variance_;
  Vector lengthscales_;
};

}  // namespace gplvm

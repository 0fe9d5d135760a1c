#pragma once
// Exponentiated quadratic kernel with automatic relevance determination:
//   k(x, x') = theta * exp(-1/2 sum_q (x_q - x'_q)^2 / l_q^2)
// parametrised by log theta and log l_q (q = 1..Q), in that order. Stationary.
#include "gplvm/model/kernel.hpp"

namespace gplvm {

class EqArdKernel final : public Kernel {
 public:
  EqArdKernel(double variance, const Vector& lengthscales);  // throws InputError unless all > 0
  EqArdKernel(double variance, double lengthscale, Index input_dim);

  std::unique_ptr<Kernel> clone() const override;
  std::string name() const override { return "eq_ard"; }
  bool is_stationary() const override { return true; }
  std::vector<NamedHyperparameter> named_hyperparameters() const override;
  Index input_dim() const override { return lengthscales_.size(); }
  Index num_hyperparameters() const override { return 1 + lengthscales_.size(); }
  std::string hyperparameter_name(Index i) const override;
  Vector hyperparameters() const override;
  void set_hyperparameters(const ConstVectorRef& values) override;

  double variance() const noexcept { return variance_; }
  const Vector& lengthscales() const noexcept { return lengthscales_; }

  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override;
  void diagonal(const ConstMatrixRef& X, Vector& k) const override;
  void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                      const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const override;
  void diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                         VectorRef d_hyper) const override;
  // d^2 k(x, x') / dx dx'^T at x' = x (kernel.hpp): theta diag(1 / l_q^2).
  Matrix gradient_covariance(const ConstMatrixRef& x) const override;
  // d^2 k(x, z) / dx dx^T = k (s s^T - diag(1 / l^2)), s = (x - z) / l^2 elementwise.
  std::vector<Matrix> input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const override;

  // The closed-form Psi-statistics of Titsias & Lawrence (2010) (docs/math/kernels.md), evaluated
  // in log space; they override the numerical default. Source: src/model/eq_ard_psi.cpp.
  void psi_statistics(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& Z,
                      PsiStatistics& out) const override;
  void psi_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& Z,
                    const PsiStatistics& value, double d_psi0, const ConstMatrixRef& d_psi1,
                    const ConstMatrixRef& d_psi2, Matrix* d_mean, Matrix* d_variance, Matrix* dZ,
                    VectorRef d_hyper) const override;

 private:
  double variance_;
  Vector lengthscales_;
};

}  // namespace gplvm

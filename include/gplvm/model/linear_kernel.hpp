#pragma once
// Linear kernel with automatic relevance determination:
//   k(x, x') = sum_q a_q x_q x'_q
// parametrised by log a_q (q = 1..Q). Not stationary (it depends on the origin). Its
// Psi-statistics have closed forms (docs/math/kernels.md), which override the numerical default.
#include "gplvm/model/kernel.hpp"

namespace gplvm {

class LinearArdKernel final : public Kernel {
 public:
  explicit LinearArdKernel(const Vector& variances);  // throws InputError unless all > 0 and Q >= 1

  std::unique_ptr<Kernel> clone() const override;
  std::string name() const override { return "linear"; }
  bool is_stationary() const override { return false; }
  std::vector<NamedHyperparameter> named_hyperparameters() const override;
  Index input_dim() const override { return variances_.size(); }
  Index num_hyperparameters() const override { return variances_.size(); }
  std::string hyperparameter_name(Index i) const override;
  Vector hyperparameters() const override;
  void set_hyperparameters(const ConstVectorRef& values) override;

  const Vector& variances() const noexcept { return variances_; }

  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override;
  void diagonal(const ConstMatrixRef& X, Vector& k) const override;
  void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                      const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const override;
  void diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                         VectorRef d_hyper) const override;
  // d^2 k(x, x') / dx dx'^T at x' = x (kernel.hpp): diag(a_q).
  Matrix gradient_covariance(const ConstMatrixRef& x) const override;
  // k is linear in each argument: its Hessian in x is 0, and H = diag(a) does not depend on x.
  std::vector<Matrix> input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const override;
  std::vector<Matrix> gradient_covariance_derivatives(const ConstMatrixRef& x) const override;

  void psi_statistics(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& Z,
                      PsiStatistics& out) const override;
  void psi_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& Z,
                    const PsiStatistics& value, double d_psi0, const ConstMatrixRef& d_psi1,
                    const ConstMatrixRef& d_psi2, Matrix* d_mean, Matrix* d_variance, Matrix* dZ,
                    VectorRef d_hyper) const override;

 private:
  Vector variances_;
};

}  // namespace gplvm

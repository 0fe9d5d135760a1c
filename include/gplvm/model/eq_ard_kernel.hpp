#pragma once
// Exponentiated quadratic kernel with automatic relevance determination:
//   k(x, x') = theta * exp(-1/2 sum_q (x_q - x'_q)^2 / l_q^2)
// parametrised by log theta and log l_q (q = 1..Q), in that order.
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

 private:
  double variance_;
  Vector lengthscales_;
};

}  // namespace gplvm

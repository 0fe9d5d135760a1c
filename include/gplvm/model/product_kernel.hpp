#pragma once
// Product of two kernels: k(x, x') = k_0(x, x') k_1(x, x'). Hyperparameters and names as for
// every composite (composite_kernel.hpp). Its Psi-statistics use the numerical default.
#include "gplvm/model/composite_kernel.hpp"

namespace gplvm {

class ProductKernel final : public CompositeKernel {
 public:
  using CompositeKernel::CompositeKernel;

  std::unique_ptr<Kernel> clone() const override;
  std::string name() const override;  // "<left>*<right>", parenthesised so that it parses back

  void cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const override;
  void diagonal(const ConstMatrixRef& X, Vector& k) const override;
  // Product rule: each child gets G o (the other child's block) through its own cross_backward.
  void cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef& K,
                      const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const override;
  void diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                         VectorRef d_hyper) const override;
  // d^2 k(x, x') / dx dx'^T at x' = x (kernel.hpp): the product rule, with each child's first derivatives at
  // x' = x.
  Matrix gradient_covariance(const ConstMatrixRef& x) const override;
  // Product rule: H_0 k_1 + g_0 g_1^T + g_1 g_0^T + k_0 H_1 for each row of Z, g the children's input
  // gradients. Its H's derivatives are the default's: zeros when both children are stationary.
  std::vector<Matrix> input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const override;
};

}  // namespace gplvm

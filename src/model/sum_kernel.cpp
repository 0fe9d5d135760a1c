#include "gplvm/model/sum_kernel.hpp"

namespace gplvm {

std::unique_ptr<Kernel> SumKernel::clone() const {
  return std::make_unique<SumKernel>(*this);
}

std::string SumKernel::name() const {
  // + is left-associative: a sum on the right needs parentheses to parse back into this tree.
  const bool wrap_right = dynamic_cast<const SumKernel*>(right_.get()) != nullptr;
  return left_->name() + "+" + child_expression(*right_, wrap_right);
}

void SumKernel::cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const {
  Matrix K_right;
  left_->cross(X1, X2, K);
  right_->cross(X1, X2, K_right);
  K += K_right;
}

void SumKernel::diagonal(const ConstMatrixRef& X, Vector& k) const {
  Vector k_right;
  left_->diagonal(X, k);
  right_->diagonal(X, k_right);
  k += k_right;
}

void SumKernel::cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef&,
                               const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2, VectorRef d_hyper) const {
  // Each child's adjoint may read its own block (eq_ard does): recompute them, the sum's K is not it.
  Matrix K_child;
  left_->cross(X1, X2, K_child);
  left_->cross_backward(X1, X2, K_child, G, dX1, dX2, left_part(d_hyper));
  right_->cross(X1, X2, K_child);
  right_->cross_backward(X1, X2, K_child, G, dX1, dX2, right_part(d_hyper));
}

void SumKernel::diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                                  VectorRef d_hyper) const {
  left_->diagonal_backward(X, g, dX, left_part(d_hyper));
  right_->diagonal_backward(X, g, dX, right_part(d_hyper));
}

Matrix SumKernel::gradient_covariance(const ConstMatrixRef& x) const {
  return left_->gradient_covariance(x) + right_->gradient_covariance(x);
}

namespace {
std::vector<Matrix> added(std::vector<Matrix> a, const std::vector<Matrix>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
  return a;
}
}  // namespace

std::vector<Matrix> SumKernel::input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const {
  return added(left_->input_hessians(x, Z), right_->input_hessians(x, Z));
}

std::vector<Matrix> SumKernel::gradient_covariance_derivatives(const ConstMatrixRef& x) const {
  return added(left_->gradient_covariance_derivatives(x), right_->gradient_covariance_derivatives(x));
}

}  // namespace gplvm

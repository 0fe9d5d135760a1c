#include "gplvm/model/product_kernel.hpp"

#include "gplvm/model/sum_kernel.hpp"

namespace gplvm {

std::unique_ptr<Kernel> ProductKernel::clone() const {
  return std::make_unique<ProductKernel>(*this);
}

std::string ProductKernel::name() const {
  // * binds tighter than + and is left-associative: a sum on either side, or a product on the
  // right, needs parentheses to parse back into this tree.
  const auto is_sum = [](const Kernel& k) { return dynamic_cast<const SumKernel*>(&k) != nullptr; };
  const bool wrap_left = is_sum(*left_);
  const bool wrap_right = is_sum(*right_) || dynamic_cast<const ProductKernel*>(right_.get()) != nullptr;
  return child_expression(*left_, wrap_left) + "*" + child_expression(*right_, wrap_right);
}

void ProductKernel::cross(const ConstMatrixRef& X1, const ConstMatrixRef& X2, Matrix& K) const {
  Matrix K_right;
  left_->cross(X1, X2, K);
  right_->cross(X1, X2, K_right);
  K.array() *= K_right.array();
}

void ProductKernel::diagonal(const ConstMatrixRef& X, Vector& k) const {
  Vector k_right;
  left_->diagonal(X, k);
  right_->diagonal(X, k_right);
  k.array() *= k_right.array();
}

void ProductKernel::cross_backward(const ConstMatrixRef& X1, const ConstMatrixRef& X2, const ConstMatrixRef&,
                                   const ConstMatrixRef& G, Matrix* dX1, Matrix* dX2,
                                   VectorRef d_hyper) const {
  // K = K_0 o K_1:  dL/dK_0 = G o K_1,  dL/dK_1 = G o K_0.
  Matrix K_left, K_right;
  left_->cross(X1, X2, K_left);
  right_->cross(X1, X2, K_right);
  const Matrix G_left = G.cwiseProduct(K_right), G_right = G.cwiseProduct(K_left);
  left_->cross_backward(X1, X2, K_left, G_left, dX1, dX2, left_part(d_hyper));
  right_->cross_backward(X1, X2, K_right, G_right, dX1, dX2, right_part(d_hyper));
}

void ProductKernel::diagonal_backward(const ConstMatrixRef& X, const Vector& g, Matrix* dX,
                                      VectorRef d_hyper) const {
  Vector k_left, k_right;
  left_->diagonal(X, k_left);
  right_->diagonal(X, k_right);
  const Vector g_left = g.cwiseProduct(k_right), g_right = g.cwiseProduct(k_left);
  left_->diagonal_backward(X, g_left, dX, left_part(d_hyper));
  right_->diagonal_backward(X, g_right, dX, right_part(d_hyper));
}

std::vector<Matrix> ProductKernel::input_hessians(const ConstMatrixRef& x, const ConstMatrixRef& Z) const {
  std::vector<Matrix> hessians = left_->input_hessians(x, Z);
  const std::vector<Matrix> right_hessians = right_->input_hessians(x, Z);
  Matrix K_left, K_right;
  left_->cross(x, Z, K_left);
  right_->cross(x, Z, K_right);
  const Matrix g_left = left_->input_gradients(x, Z), g_right = right_->input_gradients(x, Z);
  for (std::size_t m = 0; m < hessians.size(); ++m) {
    const auto i = static_cast<Index>(m);
    const Matrix cross_terms = g_left.row(i).transpose() * g_right.row(i);
    hessians[m] = hessians[m] * K_right(0, i) + cross_terms + cross_terms.transpose() +
                  K_left(0, i) * right_hessians[m];
  }
  return hessians;
}

Matrix ProductKernel::gradient_covariance(const ConstMatrixRef& x) const {
  // k = k_0 k_1:  d^2 k / dx dx'^T = H_0 k_1 + g_0 h_1^T + g_1 h_0^T + k_0 H_1 at x' = x, with g the
  // children's derivatives in x and h those in x' there (zero for stationary children).
  Vector k_left, k_right;
  left_->diagonal(x, k_left);
  right_->diagonal(x, k_right);
  Matrix g_left, h_left, g_right, h_right;
  left_->diagonal_input_gradients(x, g_left, h_left);
  right_->diagonal_input_gradients(x, g_right, h_right);
  return left_->gradient_covariance(x) * k_right[0] + g_left.transpose() * h_right +
         g_right.transpose() * h_left + k_left[0] * right_->gradient_covariance(x);
}

}  // namespace gplvm

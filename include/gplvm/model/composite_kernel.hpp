#pragma once
// What a sum and a product of two kernels share: two children over the same latent dimensions,
// the left child's hyperparameters followed by the right child's, and their names prefixed by
// the child's position: "0.<name>" for the left one, "1.<name>" for the right one (so nested
// composites read "0.1.lengthscales" and so on). Stationary iff both children are.
#include <memory>

#include "gplvm/model/kernel.hpp"

namespace gplvm {

class CompositeKernel : public Kernel {
 public:
  // Throws InputError unless both children are given and have the same input dimension.
  CompositeKernel(std::unique_ptr<Kernel> left, std::unique_ptr<Kernel> right);
  CompositeKernel(const CompositeKernel& other);
  CompositeKernel& operator=(const CompositeKernel&) = delete;

  bool is_stationary() const override { return left_->is_stationary() && right_->is_stationary(); }
  Index input_dim() const override { return left_->input_dim(); }
  Index num_hyperparameters() const override;
  std::string hyperparameter_name(Index i) const override;
  Vector hyperparameters() const override;
  void set_hyperparameters(const ConstVectorRef& values) override;
  std::vector<NamedHyperparameter> named_hyperparameters() const override;

  const Kernel& left() const noexcept { return *left_; }
  const Kernel& right() const noexcept { return *right_; }

 protected:
  // A child's expression, in parentheses when `wrap` (so that the composite's name parses back).
  static std::string child_expression(const Kernel& child, bool wrap);
  // The children's shares of a hyperparameter gradient.
  VectorRef left_part(VectorRef d_hyper) const { return d_hyper.head(left_->num_hyperparameters()); }
  VectorRef right_part(VectorRef d_hyper) const { return d_hyper.tail(right_->num_hyperparameters()); }

  std::unique_ptr<Kernel> left_, right_;
};

}  // namespace gplvm

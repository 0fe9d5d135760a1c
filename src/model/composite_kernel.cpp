#include "gplvm/model/composite_kernel.hpp"

#include <string>
#include <utility>

#include "gplvm/core/error.hpp"
#include "kernel_checks.hpp"

namespace gplvm {

CompositeKernel::CompositeKernel(std::unique_ptr<Kernel> left, std::unique_ptr<Kernel> right)
    : left_(std::move(left)), right_(std::move(right)) {
  require(left_ && right_, "a kernel sum or product needs two kernels", {"", "model.kernel", "null"});
  if (left_->input_dim() != right_->input_dim())
    throw InputError("the kernels of a sum or product must have the same number of latent dimensions",
                     {"", "latent_dim",
                      std::to_string(left_->input_dim()) + " vs " + std::to_string(right_->input_dim())});
}

CompositeKernel::CompositeKernel(const CompositeKernel& other)
    : Kernel(other), left_(other.left_->clone()), right_(other.right_->clone()) {}

std::string CompositeKernel::child_expression(const Kernel& child, bool wrap) {
  if (!wrap) return child.name();
  std::string out(1, '(');
  out += child.name();
  out += ')';
  return out;
}

Index CompositeKernel::num_hyperparameters() const {
  return left_->num_hyperparameters() + right_->num_hyperparameters();
}

std::string CompositeKernel::hyperparameter_name(Index i) const {
  const Index n_left = left_->num_hyperparameters();
  return i < n_left ? "0." + left_->hyperparameter_name(i) : "1." + right_->hyperparameter_name(i - n_left);
}

Vector CompositeKernel::hyperparameters() const {
  Vector h(num_hyperparameters());
  h << left_->hyperparameters(), right_->hyperparameters();
  return h;
}

void CompositeKernel::set_hyperparameters(const ConstVectorRef& values) {
  // Checked here as a whole, so that a wrong count leaves both children unchanged.
  kernel_checks::require_hyperparameters(values, num_hyperparameters(), "composite kernel");
  left_->set_hyperparameters(values.head(left_->num_hyperparameters()));
  right_->set_hyperparameters(values.tail(right_->num_hyperparameters()));
}

std::vector<NamedHyperparameter> CompositeKernel::named_hyperparameters() const {
  std::vector<NamedHyperparameter> named;
  for (auto& group : left_->named_hyperparameters())
    named.push_back({"0." + group.name, std::move(group.values)});
  for (auto& group : right_->named_hyperparameters())
    named.push_back({"1." + group.name, std::move(group.values)});
  return named;
}

}  // namespace gplvm

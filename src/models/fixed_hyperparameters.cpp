#include "gplvm/models/fixed_hyperparameters.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

bool names_hyperparameter(const std::string& own, const std::string& name) {
  return own == name || (own.rfind("log_", 0) == 0 && own.substr(4) == name);
}

}  // namespace

std::vector<Index> fixed_hyperparameter_indices(const Kernel& kernel, const std::vector<std::string>& names,
                                                Index kernel_offset) {
  std::vector<Index> indices;
  for (const std::string& name : names) {
    Index found = -1;
    for (Index i = 0; i < kernel.num_hyperparameters(); ++i)
      if (names_hyperparameter(kernel.hyperparameter_name(i), name)) found = i;
    if (found < 0) {
      std::string own;
      for (Index i = 0; i < kernel.num_hyperparameters(); ++i)
        own += (i ? ", " : "") + kernel.hyperparameter_name(i);
      throw InputError("no hyperparameter of this name in model.kernel (it has: " + own + ")",
                       {"", "model.fixed_hyperparameters", name});
    }
    indices.push_back(kernel_offset + found);
  }
  return indices;
}

}  // namespace gplvm

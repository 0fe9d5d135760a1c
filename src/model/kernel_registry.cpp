#include "gplvm/model/kernel_registry.hpp"

#include <map>
#include <mutex>

#include "gplvm/core/error.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"

namespace gplvm {
namespace {

std::map<std::string, KernelFactory>& registry() {
  static std::map<std::string, KernelFactory> table = {
      {"eq_ard", [](Index q, const KernelInit& init) -> std::unique_ptr<Kernel> {
         return std::make_unique<EqArdKernel>(init.variance, init.lengthscale, q);
       }}};
  return table;
}

}  // namespace

void register_kernel(const std::string& name, KernelFactory factory) {
  registry()[name] = std::move(factory);
}

bool is_registered_kernel(const std::string& name) {
  return registry().count(name) > 0;
}

std::vector<std::string> registered_kernels() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : registry()) names.push_back(name);
  return names;
}

std::unique_ptr<Kernel> make_kernel(const std::string& expression, Index input_dim, const KernelInit& init) {
  const auto it = registry().find(expression);
  require(it != registry().end(), "unknown kernel", {"", "model.kernel", expression});
  return it->second(input_dim, init);
}

}  // namespace gplvm

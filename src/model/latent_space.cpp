#include "gplvm/model/latent_space.hpp"

#include <map>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/model/euclidean_latent_space.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/model/lorentz_latent_space.hpp"

namespace gplvm {

namespace {

// The built-in spaces, registered where the registry is made (a static library drops self-registering
// object files that nothing refers to).
std::map<std::string, LatentSpaceFactory>& latent_space_registry() {
  static std::map<std::string, LatentSpaceFactory> spaces = {
      {"euclidean", [](Index q) { return std::make_unique<EuclideanLatentSpace>(q); }},
      {"lorentz", [](Index q) { return std::make_unique<LorentzLatentSpace>(q); }}};
  return spaces;
}

}  // namespace

void register_latent_space(const std::string& name, LatentSpaceFactory factory) {
  require(!name.empty() && static_cast<bool>(factory), "a latent space needs a name and a factory",
          {"", "model.latent_space", name});
  latent_space_registry()[name] = std::move(factory);
}

std::vector<std::string> registered_latent_spaces() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : latent_space_registry()) names.push_back(name);
  return names;
}

std::unique_ptr<LatentSpace> make_latent_space(const std::string& name, Index intrinsic_dim) {
  const auto it = latent_space_registry().find(name);
  if (it != latent_space_registry().end()) return it->second(intrinsic_dim);
  std::string known;
  for (const std::string& n : registered_latent_spaces()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("unknown latent space (known: " + known + ")", {"", "model.latent_space", name});
}

namespace {

// The kernel names of an expression such as "(eq_ard+linear)*periodic", in order.
std::vector<std::string> kernel_names_in(const std::string& expression) {
  std::vector<std::string> names;
  std::string current;
  for (const char c : expression + " ") {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') {
      current += c;
    } else if (!current.empty()) {
      names.push_back(current);
      current.clear();
    }
  }
  return names;
}

}  // namespace

void require_kernel_fits_latent_space(const std::string& kernel_expression, const std::string& space_name) {
  for (const std::string& name : kernel_names_in(kernel_expression)) {
    if (!is_registered_kernel(name)) continue;  // make_kernel names it, with the expression
    const std::string domain = kernel_input_domain(name);
    if (domain == space_name) continue;
    std::string fitting;  // the kernels that do take the space's points
    for (const std::string& other : registered_kernels())
      if (kernel_input_domain(other) == space_name) fitting += (fitting.empty() ? "" : ", ") + other;
    throw InputError("kernel " + name + " takes points of the " + domain +
                         " latent space; model.latent_space = \"" + space_name + "\" needs kernels on it (" +
                         (fitting.empty() ? "none is registered" : fitting) +
                         "), or set model.latent_space = \"" + domain + "\"",
                     {"", "model.kernel", kernel_expression});
  }
}

}  // namespace gplvm

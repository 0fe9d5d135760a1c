#include "gplvm/model/latent_space.hpp"

#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/model/euclidean_latent_space.hpp"
#include "gplvm/model/lorentz_latent_space.hpp"

namespace gplvm {

std::unique_ptr<LatentSpace> make_latent_space(const std::string& name, Index intrinsic_dim) {
  if (name == "euclidean") return std::make_unique<EuclideanLatentSpace>(intrinsic_dim);
  if (name == "lorentz") return std::make_unique<LorentzLatentSpace>(intrinsic_dim);
  throw InputError("unknown latent space (known: euclidean, lorentz)", {"", "model.latent_space", name});
}

namespace {

// Kernels whose inputs are points on the hyperboloid (Lorentz coordinates).
bool is_hyperboloid_kernel(const std::string& name) {
  return name == "hyperboloid_exp";
}

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
  const bool lorentz = space_name == "lorentz";
  for (const std::string& name : kernel_names_in(kernel_expression)) {
    if (lorentz && !is_hyperboloid_kernel(name))
      throw InputError("kernel " + name +
                           " takes Euclidean inputs; model.latent_space = \"lorentz\" needs kernels on the "
                           "hyperboloid (hyperboloid_exp)",
                       {"", "model.kernel", kernel_expression});
    if (!lorentz && is_hyperboloid_kernel(name))
      throw InputError(
          "kernel " + name + " takes points on the hyperboloid; set model.latent_space = \"lorentz\"",
          {"", "model.kernel", kernel_expression});
  }
}

}  // namespace gplvm

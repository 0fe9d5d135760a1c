#include "gplvm/model/latent_space.hpp"

#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/core/name_registry.hpp"
#include "gplvm/manifold/euclidean_manifold.hpp"
#include "gplvm/manifold/lorentz_manifold.hpp"
#include "gplvm/manifold/sphere_manifold.hpp"
#include "gplvm/model/euclidean_latent_space.hpp"
#include "gplvm/model/kernel_registry.hpp"
#include "gplvm/model/lorentz_latent_space.hpp"
#include "gplvm/model/sphere_latent_space.hpp"

namespace gplvm {

Index checked_latent_dim(Index intrinsic_dim) {
  require(intrinsic_dim >= 1, "latent dimension must be at least 1",
          {"", "model.latent_dim", std::to_string(intrinsic_dim)});
  return intrinsic_dim;
}

namespace {

// The built-in spaces, registered where the registry is made (a static library drops self-registering
// object files that nothing refers to).
NameRegistry<LatentSpaceFactory>& latent_space_registry() {
  static NameRegistry<LatentSpaceFactory> spaces = [] {
    NameRegistry<LatentSpaceFactory> t("model.latent_space", "latent space");
    t.add(kEuclideanSpace, [](Index q) { return std::make_unique<EuclideanLatentSpace>(q); });
    t.add(kLorentzSpace, [](Index q) { return std::make_unique<LorentzLatentSpace>(q); });
    t.add(kSphereSpace, [](Index q) { return std::make_unique<SphereLatentSpace>(q); });
    return t;
  }();
  return spaces;
}

}  // namespace

void register_latent_space(const std::string& name, LatentSpaceFactory factory) {
  require(static_cast<bool>(factory), "a latent space needs a factory", {"", "model.latent_space", name});
  latent_space_registry().add(name, std::move(factory));
}

std::vector<std::string> registered_latent_spaces() {
  return latent_space_registry().names();
}

std::string latent_spaces_where(bool (LatentSpace::*property)() const) {
  return latent_space_registry().names_where(
      [&](const LatentSpaceFactory& make) { return (*make(1).*property)(); }, " or ");
}

std::string latent_space_help() {
  std::string text;
  for (const auto& [name, make] : latent_space_registry().entries())
    text += (text.empty() ? "" : "; ") + name + " (" + make(1)->description() + ")";
  return text;
}

bool latent_space_is(const std::string& name, bool (LatentSpace::*property)() const) {
  return (*make_latent_space(name, 1).*property)();
}

std::unique_ptr<LatentSpace> make_latent_space(const std::string& name, Index intrinsic_dim) {
  return latent_space_registry().at(name)(intrinsic_dim);
}

std::unique_ptr<LatentSpace> latent_space_with_ambient_dim(const std::string& name, Index ambient_dim) {
  const Index extra = make_latent_space(name, 1)->ambient_dim() - 1;  // coordinates beyond Q
  require(ambient_dim - extra >= 1,
          "latents of " + std::to_string(ambient_dim) + " coordinates are no points of the " + name +
              " latent space (Q + " + std::to_string(extra) + " coordinates, Q >= 1)",
          {"", "latent_space", name});
  return make_latent_space(name, ambient_dim - extra);
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

#include "gplvm/manifold/output_space_registry.hpp"

#include <algorithm>

#include "gplvm/core/error.hpp"
#include "gplvm/core/name_registry.hpp"
#include "gplvm/manifold/euclidean_manifold.hpp"
#include "gplvm/manifold/kendall_shape_space.hpp"
#include "gplvm/manifold/spd_affine.hpp"
#include "gplvm/manifold/spd_log_euclidean.hpp"
#include "gplvm/manifold/sphere_manifold.hpp"

namespace gplvm {
namespace {

std::unique_ptr<Manifold> euclidean_for_width(Index data_dim, const std::string& key) {
  require(data_dim >= 1, "Euclidean data need at least 1 column",
          {"", key, std::to_string(data_dim) + " numbers per point"});
  return std::make_unique<EuclideanManifold>(data_dim);
}

// The built-in spaces, registered where the registry is made (a static library drops
// self-registering object files that nothing refers to); names and widths come from each
// manifold's own file.
NameRegistry<OutputSpace>& output_space_registry() {
  static NameRegistry<OutputSpace> spaces = [] {
    NameRegistry<OutputSpace> t("model.output_space", "output space");
    t.add(kEuclideanSpace, {euclidean_for_width, 1});
    t.add(kSphereSpace, {SphereManifold::for_width, 2});
    t.add(kKendallSpace, {KendallShapeSpace::for_width, 6});
    t.add(kSpdLogEuclideanSpace, {SpdLogEuclidean::for_width, 1});
    t.add(kSpdAffineSpace, {SpdAffine::for_width, 1});
    return t;
  }();
  return spaces;
}

}  // namespace

void register_output_space(const std::string& name, OutputSpace space) {
  require(static_cast<bool>(space.make), "an output space needs a factory", {"", "model.output_space", name});
  output_space_registry().add(name, std::move(space));
}

std::vector<std::string> registered_output_spaces() {
  return output_space_registry().names();
}

std::vector<std::string> output_manifold_names() {
  std::vector<std::string> names;
  for (const std::string& name : registered_output_spaces())
    if (output_space_is(name, &Manifold::is_curved)) names.push_back(name);
  return names;
}

std::string output_space_help(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) {
    const OutputSpace& space = output_space_registry().at(name);
    text += (text.empty() ? "" : "; ") + name + " (" +
            space.make(space.smallest_width, "model.output_space")->description() + ")";
  }
  return text;
}

bool output_space_is(const std::string& name, bool (Manifold::*property)() const) {
  const OutputSpace& space = output_space_registry().at(name);
  return (*space.make(space.smallest_width, "model.output_space").*property)();
}

void require_output_manifold(const std::string& name, const std::string& key) {
  const std::vector<std::string> curved = output_manifold_names();
  if (std::find(curved.begin(), curved.end(), name) != curved.end()) return;
  std::string known;
  for (const std::string& space : curved) known += (known.empty() ? "" : ", ") + space;
  throw InputError("unknown output space (known manifolds: " + known + ")", {"", key, name});
}

std::unique_ptr<Manifold> make_output_manifold(const std::string& name, Index data_dim,
                                               const std::string& key) {
  const NameRegistry<OutputSpace>& spaces = output_space_registry();
  if (!spaces.contains(name))
    throw InputError("unknown output space (known: " +
                         spaces.names_where([](const OutputSpace&) { return true; }, ", ") + ")",
                     {"", key, name});
  return spaces.at(name).make(data_dim, key);
}

}  // namespace gplvm

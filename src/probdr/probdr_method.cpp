#include "gplvm/probdr/probdr_method.hpp"

#include "builtin_methods.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/name_registry.hpp"

namespace gplvm {
namespace {

NameRegistry<ProbdrMethod>& registry() {
  static NameRegistry<ProbdrMethod> table = [] {
    NameRegistry<ProbdrMethod> t("probdr.method", "ProbDR method");
    for (ProbdrMethod m : {cmds_method(), diffusion_maps_method(), isomap_method(), kpca_method(),
                           laplacian_eigenmaps_method(), lle_method(), pca_method(), sne_method(),
                           tsne_method(), umap_method()})
      t.add(m.name, m);
    return t;
  }();
  return table;
}

}  // namespace

void register_probdr_method(ProbdrMethod method) {
  require(!method.name.empty(), "a ProbDR method needs a name", {"", "probdr.method", ""});
  require(static_cast<bool>(method.estimate) || method.neighbour_embedding.has_value(),
          "a ProbDR method needs a moment estimator", {"", "probdr.method", method.name});
  const std::string name = method.name;
  registry().add(name, std::move(method));
}

std::vector<std::string> registered_probdr_methods() {
  return registry().names();
}

const ProbdrMethod& probdr_method(const std::string& name) {
  return registry().at(name);
}

}  // namespace gplvm

// The neighbour-embedding methods' registrations (neighbour_embedding.hpp does the work).
#include "builtin_methods.hpp"

namespace gplvm {
namespace {

ProbdrMethod neighbour_method(const std::string& name, const std::string& summary,
                              NeighbourObjective objective) {
  ProbdrMethod m;
  m.name = name;
  m.summary = summary;
  m.uses_graph = true;
  m.neighbour_embedding = objective;
  m.extension = "the new rows optimised against the fixed embedding (openTSNE's / umap-learn's transform)";
  return m;
}

}  // namespace

ProbdrMethod sne_method() {
  return neighbour_method("sne", "stochastic neighbour embedding, exact gradient", NeighbourObjective::sne);
}
ProbdrMethod tsne_method() {
  return neighbour_method("tsne", "t-SNE (heavy-tailed, probdr.tsne_dof), FFT-interpolated repulsion",
                          NeighbourObjective::tsne);
}
ProbdrMethod umap_method() {
  return neighbour_method("umap", "UMAP, SGD with negative sampling", NeighbourObjective::umap);
}

}  // namespace gplvm

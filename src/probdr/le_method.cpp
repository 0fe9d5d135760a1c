// Laplacian eigenmaps as a ProbDR precision moment: Gamma_hat is the Laplacian of the data's
// symmetrised binary k-NN graph (graph.k, graph.search, graph.symmetrize, graph.laplacian), kept
// sparse and distributed as a PETSc matrix (laplacian_eigenmaps.hpp, laplacian_moment). Its null
// vector (1, or D^{1/2} 1 for the normalised Laplacian) is dropped; the classical coordinates are the
// retained eigenvectors, times D^{-1/2} for the normalised Laplacian (scikit-learn's
// SpectralEmbedding, up to each column's scale and sign).
#include <string>

#include "builtin_methods.hpp"
#include "gplvm/graph/neighbour_search.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "gplvm/probdr/laplacian_eigenmaps.hpp"

namespace gplvm {
namespace {

MomentEstimate estimate_laplacian(const DataRef& local_data, const ProbdrSettings& settings,
                                  const Communicator& comm) {
  const GraphSettings& g = settings.graph;
  const KnnGraph knn = nearest_neighbours(local_data, g.k, g.search, comm);
  const SparseGraph graph = symmetrise(knn, g.symmetrize, {EdgeWeight::binary, 1.0}, comm);
  MomentEstimate moment = laplacian_moment(graph, g.laplacian, comm);
  moment.description =
      std::string(g.laplacian == LaplacianKind::symmetric ? "symmetric normalised" : "unnormalised") +
      " Laplacian of the binary k-NN graph (k = " + std::to_string(g.k) + ")";
  return moment;
}

}  // namespace

ProbdrMethod laplacian_eigenmaps_method() {
  ProbdrMethod m;
  m.name = "le";
  m.summary = "Laplacian eigenmaps: the k-NN graph's Laplacian as a precision";
  m.form = MomentForm::precision;
  m.estimate = estimate_laplacian;
  m.uses_graph = true;
  return m;
}

}  // namespace gplvm

// Laplacian eigenmaps as a ProbDR precision moment: Gamma_hat is the Laplacian of the data's
// symmetrised binary k-NN graph (graph.k, graph.search, graph.symmetrize, graph.laplacian), kept
// sparse and distributed as a PETSc matrix. Its null vector (1, or D^{1/2} 1 for the normalised
// Laplacian) is dropped; the classical coordinates are the retained eigenvectors, times D^{-1/2} for
// the normalised Laplacian (scikit-learn's SpectralEmbedding, up to each column's scale and sign).
#include <cmath>
#include <memory>
#include <string>

#include "builtin_methods.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/graph/connected_components.hpp"
#include "gplvm/graph/laplacian.hpp"
#include "gplvm/graph/neighbour_search.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "gplvm/probdr/petsc_precision.hpp"

namespace gplvm {
namespace {

Vector inverse_root_degrees(const SparseGraph& graph) {
  Vector out(graph.local_rows());
  for (Index i = 0; i < graph.local_rows(); ++i) {
    double degree = 0.0;
    for (std::int64_t e = graph.row_begin(i); e < graph.row_end(i); ++e) degree += graph.weights[e];
    out[i] = 1.0 / std::sqrt(degree);
  }
  return out;
}

MomentEstimate estimate_laplacian(const DataRef& local_data, const ProbdrSettings& settings,
                                  const Communicator& comm) {
  const GraphSettings& g = settings.graph;
  require(
      g.laplacian != LaplacianKind::random_walk,
      "the random-walk Laplacian is not symmetric; use 'symmetric' (its eigenvectors times D^-1/2 are the "
      "random-walk ones) or 'unnormalised'",
      {"", "graph.laplacian", "random_walk"});
  const KnnGraph knn = nearest_neighbours(local_data, g.k, g.search, comm);
  const SparseGraph graph = symmetrise(knn, g.symmetrize, {EdgeWeight::binary, 1.0}, comm);
  // L's null space is one vector only for a connected graph; with several components their
  // indicator vectors span it and the retained eigenvectors would describe the split, not the data.
  require_connected(connected_components(graph, comm));

  MomentEstimate moment;
  moment.form = MomentForm::precision;
  moment.precision = std::make_unique<PetscMatrixPrecision>(graph_laplacian(graph, g.laplacian, comm));
  moment.null_vectors = 1;
  if (g.laplacian == LaplacianKind::symmetric) {
    const Vector scale = inverse_root_degrees(graph);
    moment.classical = [scale](const Matrix& vectors, const Vector&) -> Matrix {
      return scale.asDiagonal() * vectors;
    };
  } else {
    moment.classical = [](const Matrix& vectors, const Vector&) -> Matrix { return vectors; };
  }
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

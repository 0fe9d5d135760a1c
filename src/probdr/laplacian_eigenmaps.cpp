#include "gplvm/probdr/laplacian_eigenmaps.hpp"

#include <cmath>
#include <memory>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/connected_components.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "gplvm/probdr/petsc_precision.hpp"
#include "gplvm/probdr/spectral_fit.hpp"

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

// The classical coordinates from L's retained eigenvectors: D^-1/2 U for the normalised Laplacian.
std::function<Matrix(const Matrix&, const Vector&)> classical_embedding(const SparseGraph& graph,
                                                                        LaplacianKind kind) {
  if (kind != LaplacianKind::symmetric) return [](const Matrix& vectors, const Vector&) { return vectors; };
  const Vector scale = inverse_root_degrees(graph);
  return [scale](const Matrix& vectors, const Vector&) -> Matrix { return scale.asDiagonal() * vectors; };
}

// L's null vector, normalised: D^{1/2} 1 for the normalised Laplacian (L D^{1/2} 1 = 0), 1 for the
// unnormalised one. This rank's rows.
Matrix null_vector(const SparseGraph& graph, LaplacianKind kind, const Communicator& comm) {
  const Vector root_degree = kind == LaplacianKind::symmetric
                                 ? Vector(inverse_root_degrees(graph).cwiseInverse())
                                 : Vector(Vector::Ones(graph.local_rows()));
  return root_degree / std::sqrt(comm.allreduce_sum(root_degree.squaredNorm()));
}

}  // namespace

MomentEstimate laplacian_moment(const SparseGraph& graph, LaplacianKind kind, const Communicator& comm) {
  require(
      kind != LaplacianKind::random_walk,
      "the random-walk Laplacian is not symmetric; use 'symmetric' (its eigenvectors times D^-1/2 are the "
      "random-walk ones) or 'unnormalised'",
      {"", "graph.laplacian", "random_walk"});
  // L's null space is one vector only for a connected graph; with several components their
  // indicator vectors span it and the retained eigenvectors would describe the split, not the data.
  require_connected(connected_components(graph, comm));
  MomentEstimate moment;
  moment.form = MomentForm::precision;
  moment.precision = std::make_unique<PetscMatrixPrecision>(graph_laplacian(graph, kind, comm));
  moment.null_vectors = 1;
  moment.null_space = null_vector(graph, kind, comm);
  moment.classical = classical_embedding(graph, kind);
  moment.description =
      std::string(kind == LaplacianKind::symmetric ? "symmetric normalised" : "unnormalised") +
      " Laplacian of the neighbour graph";
  return moment;
}

SparseGraph binary_knn_graph(const DataRef& local_data, Index neighbours, const Communicator& comm) {
  const KnnGraph knn = exact_neighbours(local_data, neighbours, comm);
  return symmetrise(knn, Symmetrisation::union_of_edges, {EdgeWeight::binary, 1.0}, comm);
}

LaplacianEigenmapsFit laplacian_eigenmaps_fit(const SparseGraph& graph,
                                              const LaplacianEigenmapsOptions& options,
                                              const Communicator& comm) {
  const MomentEstimate moment = laplacian_moment(graph, options.laplacian, comm);
  const SpectralFit fit = spectral_fit(
      moment,
      {options.latent_dim, options.noise, options.regularisation, options.tolerance, options.progress}, comm);
  return {fit.optimum, fit.classical, fit.dropped[0], fit.trace, fit.iterations};
}

LaplacianEigenmapsFit laplacian_eigenmaps_fit(const DataRef& local_data,
                                              const LaplacianEigenmapsOptions& options,
                                              const Communicator& comm) {
  return laplacian_eigenmaps_fit(binary_knn_graph(local_data, options.neighbours, comm), options, comm);
}

}  // namespace gplvm

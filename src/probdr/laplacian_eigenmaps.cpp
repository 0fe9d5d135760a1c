#include "gplvm/probdr/laplacian_eigenmaps.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/connected_components.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "gplvm/objectives/wishart_precision.hpp"
#include "gplvm/probdr/petsc_precision.hpp"

namespace gplvm {
namespace {

void require_options(const LaplacianEigenmapsOptions& options) {
  require(std::isfinite(options.regularisation) && options.regularisation > 0,
          "Laplacian eigenmaps needs a regularisation gamma > 0: the Laplacian is singular",
          {"", kPrecisionRegularisationKey, std::to_string(options.regularisation)});
  require(
      options.laplacian != LaplacianKind::random_walk,
      "the random-walk Laplacian is not symmetric; use 'symmetric' (its eigenvectors times D^-1/2 are the "
      "random-walk ones) or 'unnormalised'",
      {"", "graph.laplacian", "random_walk"});
}

// The classical coordinates from L's retained eigenvectors: D^-1/2 U for the normalised Laplacian.
Matrix classical_embedding(const SparseGraph& graph, const Matrix& local_vectors, LaplacianKind kind) {
  if (kind != LaplacianKind::symmetric) return local_vectors;
  Vector inverse_root_degree(graph.local_rows());
  for (Index i = 0; i < graph.local_rows(); ++i) {
    double degree = 0.0;
    for (std::int64_t e = graph.row_begin(i); e < graph.row_end(i); ++e) degree += graph.weights[e];
    inverse_root_degree[i] = 1.0 / std::sqrt(degree);
  }
  return inverse_root_degree.asDiagonal() * local_vectors;
}

}  // namespace

SparseGraph binary_knn_graph(const DataRef& local_data, Index neighbours, const Communicator& comm) {
  const KnnGraph knn = exact_neighbours(local_data, neighbours, comm);
  return symmetrise(knn, Symmetrisation::union_of_edges, {EdgeWeight::binary, 1.0}, comm);
}

LaplacianEigenmapsFit laplacian_eigenmaps_fit(const SparseGraph& graph,
                                              const LaplacianEigenmapsOptions& options,
                                              const Communicator& comm) {
  require_options(options);
  // L's null space is one vector only for a connected graph; with several components their
  // indicator vectors span it and the retained eigenvectors would describe the split, not the data.
  require_connected(connected_components(graph, comm));
  const PetscMatrixPrecision laplacian(graph_laplacian(graph, options.laplacian, comm));
  const Index n = laplacian.num_rows(), l = options.latent_dim;
  require(l >= 1 && l + 1 < n,
          "the latent dimension l must satisfy 1 <= l < n - 1 (one eigenvector is dropped)",
          {"", "latent_dim", std::to_string(l)});
  const double trace_l = comm.allreduce_sum(laplacian.local_trace());

  SparseEigenOptions eigen;
  eigen.count = l + 1;
  eigen.end = SpectrumEnd::smallest;
  eigen.tolerance = options.tolerance;
  eigen.progress = options.progress;
  const SparseEigenpairs pairs = symmetric_eigenpairs(laplacian.matrix(), eigen, comm);

  LaplacianEigenmapsFit fit;
  fit.trace = trace_l + static_cast<double>(n) * options.regularisation;
  fit.dropped_eigenvalue = pairs.values[0] + options.regularisation;
  fit.iterations = pairs.iterations;
  const Vector retained = pairs.values.tail(l).array() + options.regularisation;
  const Matrix vectors = pairs.local_vectors.rightCols(l);
  const PrecisionClosedForm closed = precision_closed_form(retained, fit.trace, n, options.noise);
  fit.optimum.noise = closed.noise;
  fit.optimum.eigenvalues = retained;
  fit.optimum.latents = vectors * closed.scales.asDiagonal();
  fit.embedding = classical_embedding(graph, vectors, options.laplacian);
  return fit;
}

LaplacianEigenmapsFit laplacian_eigenmaps_fit(const DataRef& local_data,
                                              const LaplacianEigenmapsOptions& options,
                                              const Communicator& comm) {
  return laplacian_eigenmaps_fit(binary_knn_graph(local_data, options.neighbours, comm), options, comm);
}

}  // namespace gplvm

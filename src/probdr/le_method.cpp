// Laplacian eigenmaps as a ProbDR precision moment: Gamma_hat is the Laplacian of the data's
// symmetrised binary k-NN graph (graph.k, graph.search, graph.symmetrize, graph.laplacian), kept
// sparse and distributed as a PETSc matrix (laplacian_eigenmaps.hpp, laplacian_moment). Its null
// vector (1, or D^{1/2} 1 for the normalised Laplacian) is dropped; the classical coordinates are the
// retained eigenvectors, times D^{-1/2} for the normalised Laplacian (scikit-learn's
// SpectralEmbedding, up to each column's scale and sign).
#include <cmath>
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

// Each vertex's weighted degree, this rank's vertices.
Vector graph_degrees(const SparseGraph& graph) {
  Vector degrees(graph.local_rows());
  for (Index i = 0; i < graph.local_rows(); ++i) {
    double sum = 0.0;
    for (std::int64_t e = graph.row_begin(i); e < graph.row_end(i); ++e)
      sum += graph.weights[static_cast<std::size_t>(e)];
    degrees[i] = sum;
  }
  return degrees;
}

// The Nystrom extension of the similarity I - L (Bengio et al. 2004): a new row joins the training
// graph by edges to its own k nearest training rows (weight 1, degree d* = k); an eigenvector u of
// L of eigenvalue mu extends as
//   symmetric normalised  u* = sum_i w_i u_i / sqrt(d* d_i) / (1 - mu)
//   unnormalised          u* = sum_i w_i u_i / (d* - mu),
// and with mu in X's frame, M = (X^T X + beta I)^{-1} - gamma I (X = U (Lambda_Gamma^{-1} -
// beta)^{1/2}, Lambda_Gamma = mu + gamma), x* = (sum_i c_i x_i) (a I - M)^{-1}, a = 1 or d*.
RowMatrix extend_laplacian(const OutOfSampleInputs& in, const ProbdrSettings& settings,
                           const Communicator& comm) {
  const GraphSettings& g = settings.graph;
  const KnnGraph knn = nearest_neighbours(in.training, g.k, g.search, comm);
  const SparseGraph graph = symmetrise(knn, g.symmetrize, {EdgeWeight::binary, 1.0}, comm);
  const KnnGraph near = training_neighbours(in.training, in.new_rows, g.k, comm);
  const RowMatrix latents = training_rows(in.training_latents, knn.num_rows, near.neighbours, comm);
  const RowMatrix degrees = training_rows(graph_degrees(graph), knn.num_rows, near.neighbours, comm);
  const bool normalised = g.laplacian == LaplacianKind::symmetric;
  const auto own_degree = static_cast<double>(g.k);
  RowMatrix sums = RowMatrix::Zero(in.new_rows.rows(), in.training_latents.cols());
  for (Index i = 0; i < sums.rows(); ++i)
    for (Index t = 0; t < g.k; ++t) {
      const Index at = i * g.k + t;
      const double weight = normalised ? 1.0 / std::sqrt(own_degree * degrees(at, 0)) : 1.0;
      sums.row(i) += weight * latents.row(at);
    }
  Matrix shifted = latent_gram(in.training_latents, comm);
  shifted.diagonal().array() += in.noise;
  Matrix laplacian_values = shifted.inverse();  // M + gamma I
  laplacian_values.diagonal().array() -= settings.precision_regularisation;
  Matrix denominator = -laplacian_values;
  denominator.diagonal().array() += normalised ? 1.0 : own_degree;
  return sums * denominator.inverse();
}

}  // namespace

ProbdrMethod laplacian_eigenmaps_method() {
  ProbdrMethod m;
  m.name = "le";
  m.summary = "Laplacian eigenmaps: the k-NN graph's Laplacian as a precision";
  m.form = MomentForm::precision;
  m.estimate = estimate_laplacian;
  m.uses_graph = true;
  m.extend = extend_laplacian;
  m.extension =
      "Nystrom extension of the graph similarity I - L, the new row joined to its k nearest training rows";
  return m;
}

}  // namespace gplvm

// Isomap as a ProbDR covariance moment: the geodesic Gram matrix S_hat = -1/2 H D_geo^2 H of the
// symmetrised k-NN graph with Euclidean edge lengths (graph.k, graph.search, graph.symmetrize),
// held densely by rows (n above probdr.dense_limit is refused), or, with probdr.landmarks = m > 0,
// landmark Isomap's low-rank Nystrom approximation of it (landmark_isomap.hpp). The classical
// coordinates are U Lambda^{1/2} (scikit-learn's Isomap up to each column's sign).
#include <memory>
#include <string>
#include <vector>

#include "builtin_methods.hpp"
#include "double_centring.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/graph/connected_components.hpp"
#include "gplvm/graph/neighbour_search.hpp"
#include "gplvm/graph/shortest_paths.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "gplvm/probdr/landmark_isomap.hpp"

namespace gplvm {
namespace {

void require_size(std::uint64_t n, const ProbdrSettings& settings) {
  require(settings.landmarks >= 0, "probdr.landmarks must be 0 (exact Isomap) or a landmark count",
          {"", "probdr.landmarks", std::to_string(settings.landmarks)});
  require(settings.landmarks > 0 || n <= static_cast<std::uint64_t>(settings.dense_limit),
          "exact Isomap holds an n x n matrix and n = " + std::to_string(n) +
              " exceeds probdr.dense_limit = " + std::to_string(settings.dense_limit) +
              "; set probdr.landmarks (landmark Isomap) or raise the limit",
          {"", "probdr.dense_limit", std::to_string(settings.dense_limit)});
  require(settings.landmarks == 0 || settings.landmarks > settings.latent_dim,
          "landmark Isomap needs more landmarks than latent dimensions (" +
              std::to_string(settings.latent_dim) + ")",
          {"", "probdr.landmarks", std::to_string(settings.landmarks)});
}

// The k-NN graph with Euclidean edge lengths, symmetrised, and connected: geodesic distances
// between components would be infinite.
SparseGraph geodesic_graph(const DataRef& local_data, const GraphSettings& g, const Communicator& comm) {
  const KnnGraph knn = nearest_neighbours(local_data, g.k, g.search, comm);
  SparseGraph graph = symmetrise(knn, g.symmetrize, {EdgeWeight::distance, 1.0}, comm);
  require_connected(connected_components(graph, comm));
  return graph;
}

// -1/2 H D^2 H from this rank's rows of the geodesic distances, in one n x n block per rank: the
// distances are squared and scaled into a column-major copy, then centred in place (double_centring).
Matrix double_centred_gram(const RowMatrix& distances, const Communicator& comm) {
  Matrix gram = -0.5 * distances.array().square().matrix();
  double_centre(gram, comm);
  return gram;
}

Matrix classical_mds(const Matrix& vectors, const Vector& values) {
  return vectors * values.cwiseMax(0.0).cwiseSqrt().asDiagonal();
}

MomentEstimate estimate_isomap(const DataRef& local_data, const ProbdrSettings& settings,
                               const Communicator& comm) {
  const auto n = static_cast<std::uint64_t>(comm.allreduce_sum(static_cast<std::int64_t>(local_data.rows())));
  require_size(n, settings);
  const GraphSettings& g = settings.graph;
  const SparseGraph graph = geodesic_graph(local_data, g, comm);
  MomentEstimate moment;
  moment.form = MomentForm::covariance;
  moment.classical = classical_mds;
  const std::string graph_words = "k = " + std::to_string(g.k) + " symmetrised k-NN graph";
  if (settings.landmarks == 0) {
    std::vector<std::int64_t> sources(n);
    for (std::uint64_t i = 0; i < n; ++i) sources[i] = static_cast<std::int64_t>(i);
    // With every vertex a source, in order, the sources are split as the vertices are: this rank's
    // rows of D_geo are its own sources' distances, with no exchange.
    const SourceDistances paths = shortest_paths(graph, sources, comm);
    moment.covariance =
        std::make_unique<DenseRowCovariance>(comm, double_centred_gram(paths.distances, comm));
    moment.description = "Isomap geodesic Gram matrix -1/2 H D^2 H, exact, " + graph_words;
    return moment;
  }
  const std::vector<std::int64_t> landmarks = choose_landmarks(n, settings.landmarks, settings.seed);
  moment.covariance = std::make_unique<LowRankCovariance>(
      comm, landmark_isomap_factor(graph, landmarks, settings.latent_dim + 1, comm));
  moment.description = "landmark Isomap (approximation): Nystrom geodesic Gram F F^T from " +
                       std::to_string(settings.landmarks) + " landmarks (seed " +
                       std::to_string(settings.seed) + "), negative part clipped, " + graph_words;
  return moment;
}

}  // namespace

ProbdrMethod isomap_method() {
  ProbdrMethod m;
  m.name = "isomap";
  m.summary =
      "Isomap: the geodesic Gram matrix of the k-NN graph as a covariance (probdr.landmarks: landmark "
      "Isomap)";
  m.form = MomentForm::covariance;
  m.estimate = estimate_isomap;
  m.uses_graph = true;
  return m;
}

}  // namespace gplvm

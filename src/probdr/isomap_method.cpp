// Isomap as a ProbDR covariance moment: the geodesic Gram matrix S_hat = -1/2 H D_geo^2 H of the
// symmetrised k-NN graph with Euclidean edge lengths (graph.k, graph.search, graph.symmetrize),
// held densely by rows (n above probdr.dense_limit is refused), or, with probdr.landmarks = m > 0,
// landmark Isomap's low-rank Nystrom approximation of it (landmark_isomap.hpp). The classical
// coordinates are U Lambda^{1/2} (scikit-learn's Isomap up to each column's sign).
#include <algorithm>
#include <limits>
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

// New rows per pass of the exact extension: their neighbours (k each) are the Dijkstra sources of
// one pass, each rank holding (its vertices x sources) distances.
constexpr Index kExtensionSlice = 128;

// A new row's geodesic distance to vertex i: min over its k nearest training rows t of
// |y* - y_t| + D_geo(t, i), the path through the edge it would join the graph by.
double geodesic_through(const KnnGraph& near, Index row, const RowMatrix& to_sources,
                        const std::vector<Index>& source_of, Index vertex) {
  double best = std::numeric_limits<double>::infinity();
  for (Index t = 0; t < near.k; ++t)
    best = std::min(best, near.distances(row, t) +
                              to_sources(vertex, source_of[static_cast<std::size_t>(row * near.k + t)]));
  return best;
}

// Exact Isomap (scikit-learn's Isomap.transform): s*_i = -1/2 (g*_i^2 - mean_j D_geo(i, j)^2) up to
// terms constant in i, which X's columns (orthogonal to 1) cancel: x* = s* X (X^T X + s2 I)^{-1}.
// The training rows' mean squared geodesic distances need Dijkstra from every vertex again, in
// passes of sources; the new rows' distances one pass of their neighbours per slice of new rows.
RowMatrix extend_exact(const SparseGraph& graph, const KnnGraph& near, const OutOfSampleInputs& in,
                       const Communicator& comm) {
  const std::uint64_t n = graph.num_rows;
  Vector mean_squared = Vector::Zero(graph.local_rows());
  for (std::uint64_t begin = 0; begin < n; begin += 1024) {
    std::vector<std::int64_t> sources;
    for (std::uint64_t v = begin; v < std::min<std::uint64_t>(n, begin + 1024); ++v)
      sources.push_back(static_cast<std::int64_t>(v));
    mean_squared += distances_by_vertex(shortest_paths(graph, sources, comm), n, comm)
                        .array()
                        .square()
                        .rowwise()
                        .sum()
                        .matrix();
  }
  mean_squared /= static_cast<double>(n);

  // Every rank's new rows' neighbour lists, so that each rank can sum over its own vertices.
  const std::vector<std::int64_t> all_neighbours = comm.allgatherv(
      std::vector<std::int64_t>(near.neighbours.data(), near.neighbours.data() + near.neighbours.size()));
  const std::vector<double> all_distances = comm.allgatherv(
      std::vector<double>(near.distances.data(), near.distances.data() + near.distances.size()));
  const std::vector<std::int64_t> counts = comm.allgatherv(std::vector<std::int64_t>{near.local_rows()});
  const auto total = static_cast<Index>(all_neighbours.size()) / near.k;
  KnnGraph all;
  all.k = near.k;
  all.neighbours = Eigen::Map<const IndexMatrix>(all_neighbours.data(), total, near.k);
  all.distances = Eigen::Map<const RowMatrix>(all_distances.data(), total, near.k);

  RowMatrix sums(total, in.training_latents.cols());
  for (Index begin = 0; begin < total; begin += kExtensionSlice) {
    const Index rows = std::min(kExtensionSlice, total - begin);
    std::vector<std::int64_t> sources;
    std::vector<Index> source_of(static_cast<std::size_t>(total * near.k));
    for (Index a = begin * near.k; a < (begin + rows) * near.k; ++a) {
      source_of[static_cast<std::size_t>(a)] = static_cast<Index>(sources.size());
      sources.push_back(all_neighbours[static_cast<std::size_t>(a)]);
    }
    const RowMatrix to_sources = distances_by_vertex(shortest_paths(graph, sources, comm), n, comm);
    Matrix partial = Matrix::Zero(rows, in.training_latents.cols());
    for (Index r = 0; r < rows; ++r)
      for (Index i = 0; i < graph.local_rows(); ++i) {
        const double g = geodesic_through(all, begin + r, to_sources, source_of, i);
        partial.row(r) += -0.5 * (g * g - mean_squared[i]) * in.training_latents.row(i);
      }
    comm.allreduce_sum(partial);
    sums.middleRows(begin, rows) = partial;
  }
  std::int64_t first = 0;
  for (int r = 0; r < comm.rank(); ++r) first += counts[static_cast<std::size_t>(r)];
  const RowMatrix mine = sums.middleRows(first, near.local_rows());
  return mine * covariance_extension_factor(latent_gram(in.training_latents, comm), in.noise);
}

// Landmark Isomap: the new row is triangulated like every training point, from its squared
// geodesic distances to the landmarks (through its k nearest training rows), and projected through
// the training factor: x* = f* (F^T X) (X^T X + s2 I)^{-1}.
RowMatrix extend_landmark(const SparseGraph& graph, const KnnGraph& near, const OutOfSampleInputs& in,
                          const ProbdrSettings& settings, const Communicator& comm) {
  const std::vector<std::int64_t> landmarks =
      choose_landmarks(graph.num_rows, settings.landmarks, settings.seed);
  const LandmarkIsomap isomap = landmark_isomap(graph, landmarks, settings.latent_dim + 1, comm);
  Matrix projected = isomap.local_factor.transpose() * in.training_latents;
  comm.allreduce_sum(projected);
  const RowMatrix through = training_rows(isomap.local_distances, graph.num_rows, near.neighbours, comm);
  RowMatrix squared(near.local_rows(), static_cast<Index>(landmarks.size()));
  for (Index r = 0; r < near.local_rows(); ++r)
    for (Index a = 0; a < squared.cols(); ++a) {
      double best = std::numeric_limits<double>::infinity();
      for (Index t = 0; t < near.k; ++t)
        best = std::min(best, near.distances(r, t) + through(r * near.k + t, a));
      squared(r, a) = best * best;
    }
  return isomap.triangulation.place(squared) * projected *
         covariance_extension_factor(latent_gram(in.training_latents, comm), in.noise);
}

RowMatrix extend_isomap(const OutOfSampleInputs& in, const ProbdrSettings& settings,
                        const Communicator& comm) {
  const SparseGraph graph = geodesic_graph(in.training, settings.graph, comm);
  const KnnGraph near = training_neighbours(in.training, in.new_rows, settings.graph.k, comm);
  return settings.landmarks == 0 ? extend_exact(graph, near, in, comm)
                                 : extend_landmark(graph, near, in, settings, comm);
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
  m.extend = extend_isomap;
  m.extension =
      "geodesic distances through the new row's k nearest training rows, then Nystrom (exact) or landmark "
      "triangulation";
  return m;
}

}  // namespace gplvm

// Step 1 of SNE, t-SNE and UMAP: the k-NN graph and the method's affinities on it.
#include <cmath>
#include <cstdio>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/neighbour_search.hpp"
#include "gplvm/probdr/neighbour_embedding.hpp"

namespace gplvm {
namespace {

// Exact duplicate rows have no affinity calibration (their distance is zero whatever the bandwidth)
// and sit at one point of the embedding: refused, naming the first pair (the same on every rank).
void require_distinct_rows(const KnnGraph& knn, const Communicator& comm) {
  std::int64_t row = -1, other = -1;
  for (Index i = 0; i < knn.local_rows() && row < 0; ++i)
    if (knn.distances(i, 0) == 0.0) {
      row = static_cast<std::int64_t>(knn.first_row) + i;
      other = knn.neighbours(i, 0);
    }
  const std::int64_t first = comm.allreduce_min(row < 0 ? std::numeric_limits<std::int64_t>::max() : row);
  if (first == std::numeric_limits<std::int64_t>::max()) return;
  const std::int64_t partner = comm.allreduce_max(row == first ? other : -1);
  throw InputError("data rows " + std::to_string(std::min(first, partner)) + " and " +
                       std::to_string(std::max(first, partner)) +
                       " are identical: the neighbour-embedding affinities need distinct rows (remove "
                       "the duplicates first)",
                   {"", "data.path", ""});
}

// A number as a person writes it: 30, 0.5, 1.5769.
std::string compact(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.5g", x);
  return text;
}

}  // namespace

ProbdrSettings resolve_neighbour_settings(ProbdrSettings s, std::uint64_t num_rows) {
  NeighbourEmbeddingSettings& ne = s.neighbour;
  const auto n = static_cast<double>(num_rows);
  if (s.graph.k == 0)
    s.graph.k = ne.objective == NeighbourObjective::umap
                    ? 15
                    : static_cast<Index>(std::floor(3.0 * ne.affinities.perplexity));
  if (ne.epochs == 0) ne.epochs = num_rows <= 10000 ? 500 : 200;
  if (ne.repulsion == RepulsionMethod::automatic) {
    ne.repulsion = ne.objective == NeighbourObjective::umap ? RepulsionMethod::negative_sampling
                   : ne.objective == NeighbourObjective::sne || s.latent_dim > 2 || n <= 1000
                       ? RepulsionMethod::exact
                       : RepulsionMethod::interpolation;
  }
  if (ne.start == EmbeddingStart::automatic)
    ne.start = ne.objective == NeighbourObjective::umap ? EmbeddingStart::spectral : EmbeddingStart::pca;
  return s;
}

NeighbourAffinities neighbour_affinities(const DataRef& local_data, const ProbdrSettings& settings,
                                         const Communicator& comm) {
  const NeighbourEmbeddingSettings& ne = settings.neighbour;
  const auto n = static_cast<std::uint64_t>(comm.allreduce_sum(static_cast<std::int64_t>(local_data.rows())));
  require(n >= 4, "a neighbour embedding needs at least 4 data rows, the data have " + std::to_string(n),
          {"", "data.path", ""});
  require(ne.repulsion != RepulsionMethod::exact || static_cast<Index>(n) <= settings.dense_limit,
          "the exact repulsion sums every pair, O(n^2) per iteration: n = " + std::to_string(n) +
              " is above probdr.dense_limit = " + std::to_string(settings.dense_limit) +
              (ne.objective == NeighbourObjective::sne ? " (sne has no other; use tsne)"
                                                       : " (use interpolation)"),
          {"", "probdr.repulsion", "exact"});
  if (ne.objective != NeighbourObjective::umap) {
    require(ne.affinities.perplexity >= 1 && 3.0 * ne.affinities.perplexity < static_cast<double>(n),
            "the perplexity must be at least 1 and below n / 3 = " +
                std::to_string(static_cast<double>(n) / 3.0) + " (" + std::to_string(n) + " rows)",
            {"", "probdr.perplexity", std::to_string(ne.affinities.perplexity)});
    require(ne.affinities.kind == AffinityKind::uniform ||
                ne.affinities.perplexity < static_cast<double>(settings.graph.k),
            "the perplexity must be below graph.k = " + std::to_string(settings.graph.k) +
                ": a row's effective neighbour count cannot exceed its neighbours",
            {"", "probdr.perplexity", std::to_string(ne.affinities.perplexity)});
  }
  const Index k = settings.graph.k;
  require(k < static_cast<Index>(n), "graph.k must be below the number of rows (" + std::to_string(n) + ")",
          {"", "graph.k", std::to_string(k)});
  KnnGraph knn = nearest_neighbours(local_data, k, settings.graph.search, comm, "graph.k");
  require_distinct_rows(knn, comm);
  // The lists are released once the directed affinities are made: the symmetrisation's buffers need
  // the room (at 10^7 rows a copy of the edges is gigabytes per rank).
  const auto directed = [&knn](SparseGraph graph) {
    knn = KnnGraph{};
    return graph;
  };
  NeighbourAffinities out;
  out.kernel.objective = ne.objective;
  out.kernel.alpha = ne.degrees_of_freedom;
  const std::string search = std::string(neighbour_search_name(settings.graph.search.search)) + " search";
  switch (ne.objective) {
    case NeighbourObjective::sne:
      out.graph = conditional_affinities(knn, ne.affinities, &out.bandwidths);
      out.description = "SNE row-conditional affinities, perplexity " + compact(ne.affinities.perplexity) +
                        " on k = " + std::to_string(k) + " neighbours (" + search + ")";
      break;
    case NeighbourObjective::tsne:
      out.graph =
          joint_affinities(directed(conditional_affinities(knn, ne.affinities, &out.bandwidths)), comm);
      out.description =
          std::string("t-SNE joint affinities (p_j|i + p_i|j) / 2n, ") +
          (ne.affinities.kind == AffinityKind::uniform ? "uniform"
                                                       : "perplexity " + compact(ne.affinities.perplexity)) +
          " on k = " + std::to_string(k) + " neighbours (" + search + ")";
      break;
    case NeighbourObjective::umap:
      out.graph = fuzzy_union(
          directed(smooth_knn_memberships(knn, ne.memberships, &out.nearest, &out.bandwidths)), comm);
      out.kernel.curve = fit_umap_curve(ne.spread, ne.min_dist);
      out.description = "UMAP fuzzy union of smooth k-NN memberships on k = " + std::to_string(k) +
                        " neighbours (" + search + "), a = " + compact(out.kernel.curve.a) +
                        ", b = " + compact(out.kernel.curve.b);
      break;
  }
  return out;
}

}  // namespace gplvm

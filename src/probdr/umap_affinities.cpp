#include "gplvm/probdr/umap_affinities.hpp"

#include "affinity_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "gplvm/core/error.hpp"
#include "union_with_transpose.hpp"

namespace gplvm {
namespace {

// umap-learn's MIN_K_DIST_SCALE: sigma_i is at least this times the mean of row i's distances.
constexpr double kMinDistanceScale = 1e-3;
// A row whose bisection ends further than this (relative) from its target sum is an error.
constexpr double kUnconvergedRelative = 1e-3;

void require_options(const KnnGraph& knn, const UmapMembershipOptions& options) {
  require(knn.k >= 1, "the memberships need at least one neighbour per row",
          {"", "graph.k", std::to_string(knn.k)});
  require(std::isfinite(options.local_connectivity) && options.local_connectivity >= 0.0,
          "probdr.local_connectivity must be finite and >= 0",
          {"", "probdr.local_connectivity", exact_text(options.local_connectivity)});
  const double target = options.bandwidth * std::log2(static_cast<double>(knn.k));
  require(
      std::isfinite(options.bandwidth) && options.bandwidth > 0.0 && target < static_cast<double>(knn.k),
      "probdr.bandwidth must be positive with bandwidth * log2 k below k (k = " + std::to_string(knn.k) + ")",
      {"", "probdr.bandwidth", exact_text(options.bandwidth)});
  require(std::isfinite(options.tolerance) && options.tolerance > 0.0,
          "the membership tolerance must be positive",
          {"", "probdr.tolerance", exact_text(options.tolerance)});
  require(options.max_iterations >= 1, "the bandwidth search needs at least one iteration",
          {"", "probdr.max_iterations", std::to_string(options.max_iterations)});
}

// rho_i as umap-learn's smooth_knn_dist sets it: the distance to the local_connectivity-th nearest
// neighbour at a non-zero distance, interpolated linearly between neighbours for a fractional
// local_connectivity (from 0 below the first); the farthest one where fewer are non-zero; 0 where
// none is.
double nearest_nonzero(const RowMatrix::ConstRowXpr& distances, double local_connectivity, double tolerance) {
  std::vector<double> nonzero;
  for (Index t = 0; t < distances.size(); ++t)
    if (distances[t] > 0.0) nonzero.push_back(distances[t]);
  std::sort(nonzero.begin(), nonzero.end());
  if (nonzero.empty()) return 0.0;
  if (static_cast<double>(nonzero.size()) < local_connectivity) return nonzero.back();
  const auto index = static_cast<std::size_t>(std::floor(local_connectivity));
  const double interpolation = local_connectivity - static_cast<double>(index);
  if (index == 0) return interpolation * nonzero[0];
  double rho = nonzero[index - 1];
  if (interpolation > tolerance) rho += interpolation * (nonzero[index] - nonzero[index - 1]);
  return rho;
}

double membership_sum(const RowMatrix::ConstRowXpr& distances, double rho, double sigma) {
  double sum = 0.0;
  for (Index t = 0; t < distances.size(); ++t) {
    const double d = distances[t] - rho;
    sum += d > 0.0 ? std::exp(-d / sigma) : 1.0;
  }
  return sum;
}

// sigma_i with sum_j exp(-max(0, d_ij - rho_i) / sigma_i) = target: the sum rises from the count of
// neighbours within rho_i (sigma -> 0) to k (sigma -> infinity). Bisection as umap-learn's, from the
// row's mean distance beyond rho_i, but scale-free where umap-learn's is not: while unbracketed the
// step factor squares (2, 4, 16, ...: a bracket within a few steps at any scale, where doubling
// needs 60 steps across 18 orders of magnitude), and a bracket wider than a factor 2 is halved at its
// geometric mean. Where the count within rho_i already reaches the target (duplicates), no sigma
// does: the limit sigma -> 0, which the floor then sets.
double bandwidth_of_row(const RowMatrix::ConstRowXpr& distances, double rho, double target,
                        const UmapMembershipOptions& options, Index global_row) {
  const double within = static_cast<double>((distances.array() <= rho).count());
  if (within >= target * (1.0 - options.tolerance)) return 0.0;
  const double beyond = (distances.array() - rho).max(0.0).sum() / static_cast<double>(distances.size());
  const double infinity = std::numeric_limits<double>::infinity();
  double sigma = beyond > 0.0 ? beyond : 1.0, low = 0.0, high = infinity, factor = 2.0;
  double best_sigma = sigma, best_miss = infinity;
  for (int iteration = 0; iteration < options.max_iterations && std::isfinite(sigma) && sigma > 0.0;
       ++iteration) {
    const double sum = membership_sum(distances, rho, sigma);
    const double miss = std::abs(sum - target);
    if (miss < best_miss) best_miss = miss, best_sigma = sigma;
    if (miss <= options.tolerance * target) break;
    (sum > target ? high : low) = sigma;
    if (low == 0.0 || high == infinity) {
      sigma = low == 0.0 ? sigma / factor : sigma * factor;
      factor *= factor;
    } else {
      sigma = high > 2.0 * low ? std::sqrt(low) * std::sqrt(high) : 0.5 * (low + high);
    }
  }
  if (!(best_miss <= kUnconvergedRelative * target))
    throw NumericalError("the bandwidth search of row " + std::to_string(global_row) + " ended with sum " +
                             exact_text(best_miss) + " from its target after " +
                             std::to_string(options.max_iterations) + " iterations",
                         {"", "probdr.max_iterations", std::to_string(options.max_iterations)});
  return best_sigma;
}

}  // namespace

SparseGraph smooth_knn_memberships(const KnnGraph& knn, const UmapMembershipOptions& options,
                                   std::vector<double>* rho, std::vector<double>* sigma) {
  require_options(knn, options);
  const Index rows = knn.local_rows(), k = knn.k;
  const double target = options.bandwidth * std::log2(static_cast<double>(k));
  if (rho) rho->assign(static_cast<std::size_t>(rows), 0.0);
  if (sigma) sigma->assign(static_cast<std::size_t>(rows), 0.0);
  std::vector<Edge> edges;
  edges.reserve(static_cast<std::size_t>(rows * k));
  for (Index i = 0; i < rows; ++i) {
    require_finite_distances(knn, i);
    const auto global = static_cast<std::int64_t>(knn.first_row) + i;
    const auto distances = knn.distances.row(i);
    const double rho_i = nearest_nonzero(distances, options.local_connectivity, options.tolerance);
    const double floor = kMinDistanceScale * distances.mean();
    const double sigma_i = std::max(bandwidth_of_row(distances, rho_i, target, options, global), floor);
    if (rho) (*rho)[static_cast<std::size_t>(i)] = rho_i;
    if (sigma) (*sigma)[static_cast<std::size_t>(i)] = sigma_i;
    for (Index t = 0; t < k; ++t) {
      const double d = distances[t] - rho_i;
      edges.push_back(
          {global, knn.neighbours(i, t), d > 0.0 && sigma_i > 0.0 ? std::exp(-d / sigma_i) : 1.0});
    }
  }
  return graph_from_edges(knn.num_rows, knn.first_row, rows, std::move(edges));
}

SparseGraph fuzzy_union(const SparseGraph& directed, const Communicator& comm) {
  // a + b - a b is b + a - b a bit for bit: the result is exactly symmetric.
  return detail::union_with_transpose(directed, comm, [](double a, double b) { return a + b - a * b; });
}

}  // namespace gplvm

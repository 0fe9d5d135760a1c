#include "gplvm/eval/embedding_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/eval/metrics.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/manifold/euclidean_manifold.hpp"

namespace gplvm {
namespace {

void require_square_same(const ConstMatrixRef& a, const ConstMatrixRef& b) {
  require(a.rows() == a.cols() && b.rows() == b.cols() && a.rows() == b.rows(),
          "embedding metrics: the distance matrices must be square and of the same size",
          {"", "rows", std::to_string(a.rows()) + " vs " + std::to_string(b.rows())});
}

// The other points of row i ordered by distance (ties by index), i itself left out.
std::vector<Index> neighbours_by_distance(const ConstMatrixRef& D, Index i) {
  std::vector<Index> order;
  order.reserve(static_cast<std::size_t>(D.rows() - 1));
  for (Index j = 0; j < D.rows(); ++j)
    if (j != i) order.push_back(j);
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return D(i, a) < D(i, b); });
  return order;
}

// Ranks 1..n with ties given their average rank.
Vector average_ranks(const ConstVectorRef& v) {
  std::vector<Index> order(static_cast<std::size_t>(v.size()));
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return v[a] < v[b]; });
  Vector ranks(v.size());
  for (std::size_t start = 0; start < order.size();) {
    std::size_t end = start + 1;
    while (end < order.size() && v[order[end]] == v[order[start]]) ++end;
    const double rank = 0.5 * static_cast<double>(start + 1 + end);  // mean of start+1 .. end
    for (std::size_t t = start; t < end; ++t) ranks[order[t]] = rank;
    start = end;
  }
  return ranks;
}

}  // namespace

Matrix pairwise_euclidean_distances(const ConstMatrixRef& X) {
  return EuclideanManifold(std::max<Index>(X.cols(), 1)).distances(X, X);
}

Matrix pairwise_hamming_distances(const ConstMatrixRef& codes) {
  const Index n = codes.rows();
  Matrix D(n, n);
  for (Index j = 0; j < n; ++j)
    for (Index i = 0; i < n; ++i) D(i, j) = (codes.row(i).array() != codes.row(j).array()).count();
  return D;
}

Vector pair_values(const ConstMatrixRef& D) {
  const Index n = D.rows();
  Vector v(n * (n - 1) / 2);
  Index at = 0;
  for (Index i = 1; i < n; ++i)
    for (Index j = 0; j < i; ++j) v[at++] = D(i, j);
  return v;
}

double pearson_correlation(const ConstVectorRef& a, const ConstVectorRef& b) {
  require(a.size() == b.size() && a.size() >= 2,
          "correlation needs two equally long lists of at least two values",
          {"", "pairs", std::to_string(a.size())});
  const Eigen::ArrayXd x = a.array() - a.mean(), y = b.array() - b.mean();
  const double sxx = x.square().sum(), syy = y.square().sum();
  if (sxx == 0.0 || syy == 0.0) return std::numeric_limits<double>::quiet_NaN();
  return (x * y).sum() / std::sqrt(sxx * syy);
}

double spearman_correlation(const ConstVectorRef& a, const ConstVectorRef& b) {
  return pearson_correlation(average_ranks(a), average_ranks(b));
}

double trustworthiness(const ConstMatrixRef& data_distances, const ConstMatrixRef& latent_distances,
                       Index k) {
  require_square_same(data_distances, latent_distances);
  const Index n = data_distances.rows();
  require(k >= 1 && 2 * k < n, "the neighbourhood size k must be at least 1 and below N / 2",
          {"", "--k", std::to_string(k)});
  // r(i, j): rank of j among i's neighbours in the data (1 = nearest); sum over i's k nearest in
  // the latents of max(0, r(i, j) - k).
  const KnnGraph by_latent = neighbours_from_distances(latent_distances, k, "--k");
  double penalty = 0.0;
  std::vector<Index> data_rank(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) {
    const std::vector<Index> by_data = neighbours_by_distance(data_distances, i);
    for (std::size_t r = 0; r < by_data.size(); ++r)
      data_rank[static_cast<std::size_t>(by_data[r])] = Index(r) + 1;
    for (Index t = 0; t < k; ++t)
      penalty += static_cast<double>(
          std::max<Index>(0, data_rank[static_cast<std::size_t>(by_latent.neighbours(i, t))] - k));
  }
  const double N = static_cast<double>(n), K = static_cast<double>(k);
  return 1.0 - 2.0 / (N * K * (2.0 * N - 3.0 * K - 1.0)) * penalty;
}

double continuity(const ConstMatrixRef& data_distances, const ConstMatrixRef& latent_distances, Index k) {
  return trustworthiness(latent_distances, data_distances, k);
}

double knn_accuracy(const ConstMatrixRef& distances, const std::vector<std::int64_t>& labels, Index k) {
  const Index n = distances.rows();
  require(static_cast<Index>(labels.size()) == n, "k-NN accuracy: one label per row is needed",
          {"", "labels", std::to_string(labels.size())});
  require(k >= 1 && k < n, "the neighbourhood size k must be at least 1 and below N",
          {"", "--k", std::to_string(k)});
  const KnnGraph knn = neighbours_from_distances(distances, k, "--k");
  Index correct = 0;
  std::vector<Index> nearest(static_cast<std::size_t>(k));
  for (Index i = 0; i < n; ++i) {
    for (Index t = 0; t < k; ++t) nearest[static_cast<std::size_t>(t)] = knn.neighbours(i, t);
    correct += majority_label(labels, nearest) == labels[static_cast<std::size_t>(i)];
  }
  return static_cast<double>(correct) / static_cast<double>(n);
}

}  // namespace gplvm

#pragma once
// How well an embedding keeps the structure of its data (gplvm embedding-metrics;
// docs/math/lorentz.md, "Embedding metrics", has the definitions):
//   distance correlation  Pearson correlation of the pairwise latent distances with the pairwise
//                         Hamming distances of the rows' binary codes (Cho et al. 2022; not
//                         Szekely's distance correlation), over the pairs i > j;
//   trustworthiness T(k)  Venna & Kaski 2001: penalises latent neighbours that are far in the data;
//   continuity C(k)       the same with data and latents swapped;
//   Shepard goodness      Spearman rank correlation of the pairwise data and latent distances;
//   k-NN accuracy         leave-one-out k-nearest-neighbour classification of the labels in the
//                         latent space (majority vote, ties to the smallest label).
// Latent distances are geodesic on the hyperboloid for Lorentz latents, Euclidean otherwise.
// Everything here is serial and holds N x N distance matrices: N is capped at
// kMaxEmbeddingMetricRows (a few GB of memory at the cap).
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"

namespace gplvm {

inline constexpr Index kMaxEmbeddingMetricRows = 10000;

// N x N Euclidean distances between the rows (of data; latents ask their space: LatentSpace::distances).
Matrix pairwise_euclidean_distances(const ConstMatrixRef& X);
// Number of differing entries between rows of 0/1 codes.
Matrix pairwise_hamming_distances(const ConstMatrixRef& codes);

// The strict lower triangle (i > j), row by row: one entry per unordered pair.
Vector pair_values(const ConstMatrixRef& D);

// Pearson and Spearman (average ranks for ties) correlations; NaN when a side is constant.
double pearson_correlation(const ConstVectorRef& a, const ConstVectorRef& b);
double spearman_correlation(const ConstVectorRef& a, const ConstVectorRef& b);

// T(k) from the data's and the embedding's distance matrices (1 <= k < N / 2, as
// sklearn.manifold.trustworthiness requires); C(k) = T(k) with the roles swapped.
double trustworthiness(const ConstMatrixRef& data_distances, const ConstMatrixRef& latent_distances, Index k);
double continuity(const ConstMatrixRef& data_distances, const ConstMatrixRef& latent_distances, Index k);

// Leave-one-out k-NN accuracy of `labels` under the distances (1 <= k < N).
double knn_accuracy(const ConstMatrixRef& distances, const std::vector<std::int64_t>& labels, Index k);

}  // namespace gplvm

#pragma once
// The neighbourhood metrics of embedding_metrics.hpp for any N, rows split over the ranks, never an
// N x N matrix: trustworthiness T(k), continuity C(k) and leave-one-out k-NN accuracy by the graph
// layer's exact k-NN search and distance ranks (graph/distance_ranks.hpp), and the two all-pairs
// correlations (Shepard goodness, distance correlation) over a keyed random sample of pairs.
// Euclidean distances on both sides (a latent space whose distances are not its coordinates'
// Euclidean ones stays on the serial path, N <= kMaxEmbeddingMetricRows).
//
// Ties. Neighbours and ranks order rows by (squared distance, global index), as the serial metrics
// order them by (distance, index); the two agree wherever no two distances from a row tie to
// rounding (the serial distances are formed differently, so a near-tie may order differently).
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// T(k) of latents against data (this rank's rows of each, RowPartition's split); 1 <= k < N / 2.
double distributed_trustworthiness(const DataRef& local_data, const DataRef& local_latents, Index k,
                                   const Communicator& comm);
// C(k): T(k) with the roles of data and latents swapped.
double distributed_continuity(const DataRef& local_data, const DataRef& local_latents, Index k,
                              const Communicator& comm);
// Leave-one-out k-NN accuracy of `labels` (every row's, replicated) in the latents; 1 <= k < N.
double distributed_knn_accuracy(const DataRef& local_latents, const std::vector<std::int64_t>& labels,
                                Index k, const Communicator& comm);

// The pair (i, j), i != j, drawn for sample s of `seed`: a function of (seed, s) alone, so the same
// pairs at any rank count.
struct SampledPairs {
  Vector first, second;  // the two sides' distances for each sampled pair (every rank, in sample order)
};
// Euclidean distances of `count` sampled pairs in two row sets split alike (data and latents, or
// latents and binary codes), gathered to every rank.
SampledPairs sampled_pair_distances(const DataRef& local_a, const DataRef& local_b, std::int64_t count,
                                    std::uint64_t seed, const Communicator& comm);

}  // namespace gplvm

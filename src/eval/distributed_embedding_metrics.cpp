#include "gplvm/eval/distributed_embedding_metrics.hpp"

#include <algorithm>
#include <string>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/eval/metrics.hpp"
#include "gplvm/graph/distance_ranks.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/graph/squared_distances.hpp"
#include "gplvm/parallel/remote_rows.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {
namespace {

std::uint64_t total_rows(const DataRef& local, const Communicator& comm) {
  return static_cast<std::uint64_t>(comm.allreduce_sum(static_cast<std::int64_t>(local.rows())));
}

void require_k(Index k, std::uint64_t n, bool half) {
  const auto limit = static_cast<Index>(half ? (n + 1) / 2 : n);
  require(k >= 1 && (half ? 2 * k < static_cast<Index>(n) : k < limit),
          half ? "the neighbourhood size k must be at least 1 and below N / 2"
               : "the neighbourhood size k must be at least 1 and below N",
          {"", "--k", std::to_string(k)});
}

}  // namespace

// sum_i sum_{j in k-NN of i by `near`} max(0, r_far(i, j) - k), r_far the rank of j from i in `far`.
double distributed_trustworthiness(const DataRef& local_data, const DataRef& local_latents, Index k,
                                   const Communicator& comm) {
  const std::uint64_t n = total_rows(local_data, comm);
  require_k(k, n, true);
  const KnnGraph by_latent = exact_neighbours(local_latents, k, comm, "--k");
  const IndexMatrix ranks = distance_ranks(local_data, by_latent.neighbours, comm);
  double penalty = 0.0;
  for (Index i = 0; i < ranks.rows(); ++i)
    for (Index t = 0; t < k; ++t) penalty += static_cast<double>(std::max<std::int64_t>(0, ranks(i, t) - k));
  penalty = comm.allreduce_sum(penalty);
  const double N = static_cast<double>(n), K = static_cast<double>(k);
  return 1.0 - 2.0 / (N * K * (2.0 * N - 3.0 * K - 1.0)) * penalty;
}

double distributed_continuity(const DataRef& local_data, const DataRef& local_latents, Index k,
                              const Communicator& comm) {
  return distributed_trustworthiness(local_latents, local_data, k, comm);
}

double distributed_knn_accuracy(const DataRef& local_latents, const std::vector<std::int64_t>& labels,
                                Index k, const Communicator& comm) {
  const std::uint64_t n = total_rows(local_latents, comm);
  require(labels.size() == n, "k-NN accuracy: one label per row is needed",
          {"", "labels", std::to_string(labels.size())});
  require_k(k, n, false);
  const KnnGraph knn = exact_neighbours(local_latents, k, comm, "--k");
  double correct = 0.0;
  std::vector<Index> nearest(static_cast<std::size_t>(k));
  for (Index i = 0; i < knn.local_rows(); ++i) {
    for (Index t = 0; t < k; ++t) nearest[static_cast<std::size_t>(t)] = knn.neighbours(i, t);
    correct +=
        majority_label(labels, nearest) == labels[knn.first_row + static_cast<std::uint64_t>(i)] ? 1.0 : 0.0;
  }
  return comm.allreduce_sum(correct) / static_cast<double>(n);
}

SampledPairs sampled_pair_distances(const DataRef& local_a, const DataRef& local_b, std::int64_t count,
                                    std::uint64_t seed, const Communicator& comm) {
  const std::uint64_t n = total_rows(local_a, comm);
  require(n >= 2, "sampled pairs need at least two rows", {"", "rows", std::to_string(n)});
  const RowPartition partition(n, comm.size());
  const std::uint64_t first = partition.begin(comm.rank()), end = first + partition.count(comm.rank());
  // This rank draws every pair and keeps those whose first row it owns, then fetches second rows.
  std::vector<std::int64_t> samples, seconds;
  std::vector<Index> firsts;
  const CounterRng rng(seed);
  for (std::int64_t s = 0; s < count; ++s) {
    const CounterRng::Block b = rng.block(RngPurpose::pair_sample, 0, 0, static_cast<std::uint64_t>(s));
    const std::uint64_t word0 = (std::uint64_t{b[0]} << 32) | b[1],
                        word1 = (std::uint64_t{b[2]} << 32) | b[3];
    const std::uint64_t i = word0 % n, j_raw = 1 + word1 % (n - 1);
    if (i < first || i >= end) continue;
    samples.push_back(s);
    firsts.push_back(static_cast<Index>(i - first));
    seconds.push_back(static_cast<std::int64_t>((i + j_raw) % n));  // j != i
  }
  const RowMatrix a_rows = fetch_rows(local_a, n, seconds, comm),
                  b_rows = fetch_rows(local_b, n, seconds, comm);
  std::vector<double> out_a(static_cast<std::size_t>(count), 0.0),
      out_b(static_cast<std::size_t>(count), 0.0);
  for (std::size_t p = 0; p < samples.size(); ++p) {
    const auto at = static_cast<std::size_t>(samples[p]);
    out_a[at] = (local_a.row(firsts[p]) - a_rows.row(static_cast<Index>(p))).norm();
    out_b[at] = (local_b.row(firsts[p]) - b_rows.row(static_cast<Index>(p))).norm();
  }
  comm.allreduce_sum(out_a.data(), count);
  comm.allreduce_sum(out_b.data(), count);
  return {Eigen::Map<const Vector>(out_a.data(), count), Eigen::Map<const Vector>(out_b.data(), count)};
}

}  // namespace gplvm

// The distributed embedding metrics (eval/distributed_embedding_metrics.hpp) at 1-4 ranks against
// the serial ones on the same rows (n = 150, continuous random data, so no distances tie): T(k),
// C(k) and k-NN accuracy equal to rounding; the sampled pair distances are the same at every rank
// count, are distances of distinct rows, and their Spearman / Pearson correlations estimate the
// all-pairs ones (5,000 pairs of 11,175: within 0.05).
#include <gtest/gtest.h>

#include <cmath>

#include "gplvm/eval/distributed_embedding_metrics.hpp"
#include "gplvm/eval/embedding_metrics.hpp"
#include "graph/graph_test_data.hpp"

namespace gplvm {
namespace {

constexpr Index kN = 150, kK = 7;

struct Problem {
  RowMatrix data, latents;
  std::vector<std::int64_t> labels;
};

Problem problem() {
  Problem p;
  p.data = testing::gaussian_rows(kN, 6, 11);
  p.latents = p.data.leftCols(2) + 0.6 * testing::gaussian_rows(kN, 2, 12);
  for (Index i = 0; i < kN; ++i) p.labels.push_back((p.data(i, 0) > 0) + 2 * (p.data(i, 1) > 0.3));
  return p;
}

TEST(DistributedEmbeddingMetrics, EqualTheSerialMetrics) {
  const Communicator comm;
  const Problem p = problem();
  const Matrix dd = pairwise_euclidean_distances(p.data), dl = pairwise_euclidean_distances(p.latents);
  const RowMatrix data = testing::local_block(p.data, comm), latents = testing::local_block(p.latents, comm);
  EXPECT_NEAR(distributed_trustworthiness(data, latents, kK, comm), trustworthiness(dd, dl, kK), 1e-13);
  EXPECT_NEAR(distributed_continuity(data, latents, kK, comm), continuity(dd, dl, kK), 1e-13);
  EXPECT_NEAR(distributed_knn_accuracy(latents, p.labels, kK, comm), knn_accuracy(dl, p.labels, kK), 1e-15);
  EXPECT_LT(trustworthiness(dd, dl, kK), 0.999);  // the latents lose structure: the metric is not trivially 1
}

TEST(DistributedEmbeddingMetrics, SampledPairsAreRankInvariantAndEstimateTheAllPairsCorrelations) {
  const Communicator comm;
  const Problem p = problem();
  const RowMatrix data = testing::local_block(p.data, comm), latents = testing::local_block(p.latents, comm);
  const SampledPairs pairs = sampled_pair_distances(data, latents, 5000, 3, comm);
  // Rank invariance: the pairs are drawn from (seed, sample) alone; compare with rank 0's draw at one
  // rank, recomputed here from the whole matrices through a communicator of this process alone.
  const Communicator self(MPI_COMM_SELF);
  const SampledPairs serial = sampled_pair_distances(p.data, p.latents, 5000, 3, self);
  EXPECT_EQ((pairs.first - serial.first).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ((pairs.second - serial.second).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_GT(pairs.first.minCoeff(), 0.0);  // never a row with itself
  const Vector all_data = pair_values(pairwise_euclidean_distances(p.data));
  const Vector all_latents = pair_values(pairwise_euclidean_distances(p.latents));
  EXPECT_NEAR(spearman_correlation(pairs.first, pairs.second), spearman_correlation(all_data, all_latents),
              0.05);
  EXPECT_NEAR(pearson_correlation(pairs.first, pairs.second), pearson_correlation(all_data, all_latents),
              0.05);
}

}  // namespace
}  // namespace gplvm

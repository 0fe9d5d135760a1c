// t-SNE's and UMAP's data-space affinities at 1-4 ranks: on the k-NN graph of rows split by
// RowPartition (nearest_neighbours), the conditional and joint affinities, the smooth k-NN
// memberships and their fuzzy union, with the per-row precisions, rho and sigma, gathered, are bit for
// bit those of one process (MPI_COMM_SELF) at every rank count; the joint affinities sum to 1 and
// both symmetric graphs are symmetric across the ranks' blocks.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "gplvm/graph/neighbour_search.hpp"
#include "gplvm/probdr/perplexity_affinities.hpp"
#include "gplvm/probdr/umap_affinities.hpp"
#include "graph/graph_test_data.hpp"

namespace gplvm {
namespace {

constexpr Index kRows = 157;  // uneven blocks at 2-4 ranks
constexpr Index kNeighbours = 20;

// Three clusters with duplicate rows (a pair, and a group of four that are each other's nearest).
RowMatrix data() {
  RowMatrix rows = testing::three_clusters(60, 55, 42, 5, 61);
  rows.row(10) = rows.row(11);
  for (Index i = 71; i < 74; ++i) rows.row(i) = rows.row(70);
  return rows;
}

// The whole graph in row order on every rank: edges per row, columns, weights.
struct GatheredGraph {
  std::vector<std::int64_t> edges_per_row, columns;
  std::vector<double> weights;
};

GatheredGraph gather(const SparseGraph& graph, const Communicator& comm) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(graph.local_rows()));
  for (Index i = 0; i < graph.local_rows(); ++i)
    counts[static_cast<std::size_t>(i)] = graph.row_end(i) - graph.row_begin(i);
  return {comm.allgatherv(counts), comm.allgatherv(graph.columns), comm.allgatherv(graph.weights)};
}

// How many values differ in their bits (all of the longer one where the lengths differ).
std::size_t bitwise_differences(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    differing += std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i]);
  return differing;
}

void expect_same_graph(const GatheredGraph& a, const GatheredGraph& b, const char* what) {
  EXPECT_EQ(a.edges_per_row, b.edges_per_row) << what;
  EXPECT_EQ(a.columns, b.columns) << what;
  EXPECT_EQ(bitwise_differences(a.weights, b.weights), 0u) << what;
}

// Everything this file computes, on `rows` (this rank's block of data() under `comm`), gathered.
struct Affinities {
  GatheredGraph conditional, joint, memberships, fuzzy;
  std::vector<double> precisions, rho, sigma;
};

Affinities affinities(const RowMatrix& rows, const Communicator& comm) {
  const KnnGraph knn = nearest_neighbours(rows, kNeighbours, NeighbourSearchOptions{}, comm);
  PerplexityOptions perplexity;
  perplexity.perplexity = 7.0;
  std::vector<double> precisions, rho, sigma;
  const SparseGraph conditional = conditional_affinities(knn, perplexity, &precisions);
  const SparseGraph memberships = smooth_knn_memberships(knn, UmapMembershipOptions{}, &rho, &sigma);
  return {gather(conditional, comm),   gather(joint_affinities(conditional, comm), comm),
          gather(memberships, comm),   gather(fuzzy_union(memberships, comm), comm),
          comm.allgatherv(precisions), comm.allgatherv(rho),
          comm.allgatherv(sigma)};
}

TEST(NeighbourAffinities, EqualOneProcessBitForBit) {
  const Communicator comm;
  const RowMatrix all = data();
  const Affinities distributed = affinities(testing::local_block(all, comm), comm);
  const Affinities serial = affinities(all, Communicator(MPI_COMM_SELF));
  ASSERT_EQ(serial.conditional.edges_per_row.size(), static_cast<std::size_t>(kRows));
  expect_same_graph(distributed.conditional, serial.conditional, "conditional");
  expect_same_graph(distributed.joint, serial.joint, "joint");
  expect_same_graph(distributed.memberships, serial.memberships, "memberships");
  expect_same_graph(distributed.fuzzy, serial.fuzzy, "fuzzy union");
  EXPECT_EQ(bitwise_differences(distributed.precisions, serial.precisions), 0u);
  EXPECT_EQ(bitwise_differences(distributed.rho, serial.rho), 0u);
  EXPECT_EQ(bitwise_differences(distributed.sigma, serial.sigma), 0u);
}

TEST(NeighbourAffinities, JointSumsToOneAndBothUnionsAreSymmetric) {
  const Communicator comm;
  const KnnGraph knn =
      nearest_neighbours(testing::local_block(data(), comm), kNeighbours, NeighbourSearchOptions{}, comm);
  PerplexityOptions options;
  options.perplexity = 12.0;
  const SparseGraph joint = joint_affinities(conditional_affinities(knn, options), comm);
  double local = 0.0;
  for (double w : joint.weights) local += w;
  EXPECT_NEAR(comm.allreduce_sum(local), 1.0, 1e-13);
  EXPECT_TRUE(is_symmetric(joint, comm));
  const SparseGraph fuzzy = fuzzy_union(smooth_knn_memberships(knn, UmapMembershipOptions{}), comm);
  EXPECT_TRUE(is_symmetric(fuzzy, comm));
  // The dense forms of both, gathered: the union formula entry by entry.
  const Matrix p = testing::dense_graph(conditional_affinities(knn, options), comm).first;
  const Matrix j = testing::dense_graph(joint, comm).first;
  EXPECT_EQ(j, (p + p.transpose()) / (2.0 * kRows));
  const Matrix v = testing::dense_graph(smooth_knn_memberships(knn, UmapMembershipOptions{}), comm).first;
  const Matrix expected = v + v.transpose() - v.cwiseProduct(v.transpose());
  EXPECT_LE((testing::dense_graph(fuzzy, comm).first - expected).cwiseAbs().maxCoeff(), 1e-16);
}

}  // namespace
}  // namespace gplvm

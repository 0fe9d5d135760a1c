// Distributed k nearest neighbours at 1-4 ranks: exact against a brute force by exact differences
// (ties and duplicate rows included), bitwise equal to the search on one rank, hnsw's recall against
// exact, and bad input refused alike on every rank.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <set>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/graph/neighbour_search.hpp"
#include "graph/graph_test_data.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::brute_force_neighbours;
using testing::gaussian_rows;
using testing::local_block;

// The search over one process's whole data (MPI_COMM_SELF): the serial reference.
KnnGraph serial_exact(const RowMatrix& all, Index k) {
  return exact_neighbours(all, k, Communicator(MPI_COMM_SELF));
}

TEST(ExactNeighbours, MatchBruteForceOnUnevenSplits) {
  const Communicator comm;
  const RowMatrix all = gaussian_rows(103, 7, 11);  // 103 rows: uneven blocks at 2-4 ranks
  const Index k = 6;
  const KnnGraph knn = exact_neighbours(local_block(all, comm), k, comm);
  const auto reference = brute_force_neighbours(all, k);
  ASSERT_EQ(knn.num_rows, 103u);
  for (Index i = 0; i < knn.local_rows(); ++i) {
    const auto& expected = reference[knn.first_row + i];
    for (Index t = 0; t < k; ++t) {
      EXPECT_EQ(knn.neighbours(i, t), expected[t].second) << "row " << knn.first_row + i << ", rank " << t;
      EXPECT_NEAR(knn.distances(i, t), std::sqrt(expected[t].first), 1e-12);
    }
  }
}

TEST(ExactNeighbours, EqualTheSerialSearchBitwise) {
  const Communicator comm;
  const RowMatrix all = gaussian_rows(103, 9, 12);
  const KnnGraph serial = serial_exact(all, 5);
  const KnnGraph knn = exact_neighbours(local_block(all, comm), 5, comm);
  const auto first = static_cast<Index>(knn.first_row);
  ASSERT_EQ(knn.neighbours.rows(), knn.distances.rows());
  for (Index i = 0; i < knn.local_rows(); ++i)
    for (Index t = 0; t < 5; ++t) {
      EXPECT_EQ(knn.neighbours(i, t), serial.neighbours(first + i, t));
      // Bit for bit, not merely close: the distances do not depend on the blocks.
      EXPECT_EQ(std::bit_cast<std::uint64_t>(knn.distances(i, t)),
                std::bit_cast<std::uint64_t>(serial.distances(first + i, t)));
    }
}

// Points of a 1-D integer grid (many equal distances, all exact in floating point) and duplicate rows:
// ties go to the lower index, duplicates are neighbours at distance 0 and a row is never its own.
TEST(ExactNeighbours, BreakTiesByTheLowerIndexAndKeepDuplicates) {
  const Communicator comm;
  RowMatrix all(12, 2);
  for (Index i = 0; i < 12; ++i) all.row(i) << static_cast<double>(i % 6), 0.0;  // row i + 6 duplicates row i
  const KnnGraph knn = exact_neighbours(local_block(all, comm), 3, comm);
  for (Index i = 0; i < knn.local_rows(); ++i) {
    const auto row = static_cast<std::int64_t>(knn.first_row) + i;
    const std::int64_t twin = row < 6 ? row + 6 : row - 6;
    EXPECT_EQ(knn.neighbours(i, 0), twin);
    EXPECT_EQ(knn.distances(i, 0), 0.0);
    for (Index t = 0; t < 3; ++t) EXPECT_NE(knn.neighbours(i, t), row);
  }
  // Row 2 (x = 2): its twin 8, then x = 1 (rows 1, 7) and x = 3 (rows 3, 9) at distance 1: the two
  // lowest indices of the four, 1 and 3.
  const auto reference = brute_force_neighbours(all, 3);
  for (Index i = 0; i < knn.local_rows(); ++i)
    for (Index t = 0; t < 3; ++t) EXPECT_EQ(knn.neighbours(i, t), reference[knn.first_row + i][t].second);
  if (knn.first_row <= 2 && 2 < knn.first_row + knn.local_rows()) {
    const Index i = 2 - static_cast<Index>(knn.first_row);
    EXPECT_EQ(knn.neighbours(i, 0), 8);
    EXPECT_EQ(knn.neighbours(i, 1), 1);
    EXPECT_EQ(knn.neighbours(i, 2), 3);
  }
}

// Three rows at four ranks: a rank with no row still takes part in every shift of the ring.
TEST(NeighbourSearch, RanksWithoutRowsTakePart) {
  const Communicator comm;
  RowMatrix all(3, 2);
  all << 0.0, 0.0, 1.0, 0.0, 0.0, 3.0;
  const std::vector<std::vector<std::int64_t>> expected = {{1, 2}, {0, 2}, {0, 1}};
  for (const char* search : {"exact", "hnsw"}) {
    const KnnGraph knn =
        nearest_neighbours(local_block(all, comm), 2, {parse_neighbour_search(search), {}}, comm);
    for (Index i = 0; i < knn.local_rows(); ++i)
      for (Index t = 0; t < 2; ++t) EXPECT_EQ(knn.neighbours(i, t), expected[knn.first_row + i][t]) << search;
  }
}

double recall(const KnnGraph& found, const std::vector<std::vector<std::pair<double, Index>>>& truth,
              const Communicator& comm) {
  double hits = 0;
  for (Index i = 0; i < found.local_rows(); ++i) {
    std::set<std::int64_t> expected;
    for (const auto& [d, j] : truth[found.first_row + i]) expected.insert(j);
    for (Index t = 0; t < found.k; ++t) hits += expected.count(found.neighbours(i, t));
  }
  return comm.allreduce_sum(hits) / static_cast<double>(found.num_rows * found.k);
}

TEST(HnswNeighbours, RecallAgainstExactIsAtLeast95Percent) {
  const Communicator comm;
  const RowMatrix all = gaussian_rows(2000, 20, 13);
  const KnnGraph exact = exact_neighbours(local_block(all, comm), 10, comm);
  std::vector<std::vector<std::pair<double, Index>>> truth(2000);
  const RowMatrix ids = comm.allgather_rows(DataRef(exact.neighbours.cast<double>()));
  for (Index i = 0; i < 2000; ++i)
    for (Index t = 0; t < 10; ++t) truth[i].push_back({0.0, static_cast<Index>(ids(i, t))});
  NeighbourSearchOptions options;
  options.search = parse_neighbour_search("hnsw");
  const KnnGraph approximate = nearest_neighbours(local_block(all, comm), 10, options, comm);
  const double r = recall(approximate, truth, comm);
  EXPECT_GE(r, 0.95) << "at " << comm.size() << " ranks";
  EXPECT_LE(r, 1.0);
  // Every neighbour found is at its true distance, and the lists are sorted.
  const RowMatrix block = local_block(all, comm);
  for (Index i = 0; i < approximate.local_rows(); ++i)
    for (Index t = 0; t < 10; ++t) {
      const Index j = static_cast<Index>(approximate.neighbours(i, t));
      EXPECT_NEAR(approximate.distances(i, t), (block.row(i) - all.row(j)).norm(), 1e-12);
      EXPECT_NE(j, static_cast<Index>(approximate.first_row) + i);
      if (t > 0) {
        EXPECT_LE(approximate.distances(i, t - 1), approximate.distances(i, t));
      }
    }
}

// Exact duplicates are found at distance exactly 0 (the norms and dot products are summed alike).
TEST(HnswNeighbours, FindDuplicatesAtDistanceZero) {
  const Communicator comm;
  RowMatrix all = gaussian_rows(40, 5, 16);
  all.bottomRows(20) = all.topRows(20).eval();  // row i + 20 duplicates row i
  const KnnGraph knn = hnsw_neighbours(local_block(all, comm), 3, {}, comm);
  for (Index i = 0; i < knn.local_rows(); ++i) {
    const auto row = static_cast<std::int64_t>(knn.first_row) + i;
    EXPECT_EQ(knn.neighbours(i, 0), row < 20 ? row + 20 : row - 20);
    EXPECT_EQ(knn.distances(i, 0), 0.0);
    EXPECT_GT(knn.distances(i, 1), 0.0);
  }
}

TEST(HnswNeighbours, AreTheSameForTheSameSeedAndRankCount) {
  const Communicator comm;
  const RowMatrix block = local_block(gaussian_rows(600, 8, 14), comm);
  const HnswOptions options{8, 20, 12, 7};  // small graphs, so that the search is far from exact
  const KnnGraph a = hnsw_neighbours(block, 7, options, comm);
  const KnnGraph b = hnsw_neighbours(block, 7, options, comm);
  EXPECT_EQ(a.neighbours, b.neighbours);
  EXPECT_EQ(a.distances, b.distances);
}

// Passing the queries around the ring in chunks (of sizes that leave some ranks none in the last
// chunk) finds the same lists as passing each rank's block whole.
TEST(HnswNeighbours, AreTheSameWhateverTheQueryChunks) {
  const Communicator comm;
  const RowMatrix block = local_block(gaussian_rows(301, 6, 17), comm);
  HnswOptions options{8, 20, 12, 7};
  const KnnGraph whole = hnsw_neighbours(block, 5, options, comm);
  for (const Index chunk : {1, 7, 64}) {
    options.chunk_rows = chunk;
    const KnnGraph chunked = hnsw_neighbours(block, 5, options, comm);
    EXPECT_EQ(chunked.neighbours, whole.neighbours) << chunk;
    EXPECT_EQ(chunked.distances, whole.distances) << chunk;
  }
}

TEST(NeighbourSearch, RefusesBadInputOnEveryRank) {
  const Communicator comm;
  RowMatrix all = gaussian_rows(20, 3, 15);
  EXPECT_TRUE(testing::contains(
      testing::input_error_of([&] { exact_neighbours(local_block(all, comm), 20, comm); }).key, "graph.k"));
  EXPECT_TRUE(testing::contains(
      testing::input_error_of([&] { exact_neighbours(local_block(all, comm), 0, comm); }).key, "graph.k"));
  all(13, 1) = std::numeric_limits<double>::quiet_NaN();
  all(17, 0) = std::numeric_limits<double>::infinity();
  for (const char* search : {"exact", "hnsw"}) {
    NeighbourSearchOptions options{parse_neighbour_search(search), {}};
    const std::string message = testing::input_error_of([&] {
                                  nearest_neighbours(local_block(all, comm), 3, options, comm);
                                }).message;
    EXPECT_TRUE(testing::contains(message, "row 13 ")) << message;
  }
  const auto unknown = testing::input_error_of([] { parse_neighbour_search("kd_tree"); });
  EXPECT_EQ(unknown.key, "graph.search");
  EXPECT_TRUE(testing::contains(unknown.message, "exact, hnsw")) << unknown.message;
}

}  // namespace
}  // namespace gplvm

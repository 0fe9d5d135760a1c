#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>

#include "gplvm/core/error.hpp"
#include "gplvm/model/eq_ard_kernel.hpp"
#include "gplvm/synthetic/synthetic.hpp"

namespace gplvm {
namespace {

bool bitwise_equal(const SyntheticData& a, const SyntheticData& b) {
  return a.Y.rows() == b.Y.rows() && a.Y.cols() == b.Y.cols() && (a.Y.array() == b.Y.array()).all() &&
         a.latent_true.rows() == b.latent_true.rows() && a.latent_true.cols() == b.latent_true.cols() &&
         (a.latent_true.array() == b.latent_true.array()).all() && a.labels == b.labels;
}

void expect_shapes(const SyntheticData& data, Index N, Index D, Index latent_cols) {
  EXPECT_EQ(data.Y.rows(), N);
  EXPECT_EQ(data.Y.cols(), D);
  EXPECT_EQ(data.latent_true.rows(), N);
  EXPECT_EQ(data.latent_true.cols(), latent_cols);
  EXPECT_EQ(static_cast<Index>(data.labels.size()), N);
  EXPECT_TRUE(data.Y.allFinite());
  EXPECT_TRUE(data.latent_true.allFinite());
  EXPECT_FALSE(data.description.empty());
}

void expect_labels_in(const SyntheticData& data, std::int64_t lo, std::int64_t hi_inclusive) {
  const auto [min_it, max_it] = std::minmax_element(data.labels.begin(), data.labels.end());
  EXPECT_GE(*min_it, lo);
  EXPECT_LE(*max_it, hi_inclusive);
}

// Throws InputError whose message names `key`.
template <typename F>
void expect_input_error(F&& f, const std::string& key) {
  try {
    f();
    ADD_FAILURE() << "no InputError for " << key;
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, key) << e.what();
  }
}

double row_distance(const RowMatrix& Y, Index i, Index j) {
  return (Y.row(i) - Y.row(j)).norm();
}

// ---------------------------------------------------------------------------------------------------------------

TEST(GpSamples, ShapesLabelsAndDeterminism) {
  const SyntheticData a = gp_samples(60, 4, 2, 7), b = gp_samples(60, 4, 2, 7), c = gp_samples(60, 4, 2, 8);
  expect_shapes(a, 60, 4, 2);
  EXPECT_TRUE(bitwise_equal(a, b));
  EXPECT_FALSE((a.Y.array() == c.Y.array()).all());
  expect_labels_in(a, 0, 3);
  for (Index n = 0; n < 60; ++n)
    EXPECT_EQ(a.labels[n], (a.latent_true(n, 0) > 0 ? 1 : 0) + (a.latent_true(n, 1) > 0 ? 2 : 0));
  expect_labels_in(gp_samples(200, 1, 5, 1), 0, 7);  // orthants of the first three dims only
}

TEST(GpSamples, LatentsAreStandardNormal) {
  const SyntheticData data = gp_samples(2000, 1, 3, 11);
  const Eigen::RowVectorXd mean = data.latent_true.colwise().mean();
  const Matrix centred = data.latent_true.rowwise() - mean;
  const Matrix cov = centred.transpose() * centred / 1999.0;
  EXPECT_LT(mean.cwiseAbs().maxCoeff(), 0.1);
  EXPECT_LT((cov - Matrix::Identity(3, 3)).cwiseAbs().maxCoeff(), 0.1);
}

// With X fixed, the D columns of Y are i.i.d. N(0, C), C = K(X, X) + s2 I. Entry (i, j) of the sample
// covariance has standard deviation sqrt((C_ij^2 + C_ii C_jj) / D): allow six of them (1600 entries).
TEST(GpSamples, OutputCovarianceMatchesKernelPlusNoise) {
  const Index N = 40, D = 4000;
  const double variance = 1.5, lengthscale = 0.8, noise = 0.1;
  const SyntheticData data = gp_samples(N, D, 2, 3, variance, lengthscale, noise);
  Matrix C;
  EqArdKernel(variance, lengthscale, 2).cross(data.latent_true, data.latent_true, C);
  C.diagonal().array() += noise;
  const Matrix S = data.Y * data.Y.transpose() / static_cast<double>(D);
  for (Index i = 0; i < N; ++i)
    for (Index j = 0; j < N; ++j) {
      const double sd = std::sqrt((C(i, j) * C(i, j) + C(i, i) * C(j, j)) / D);
      EXPECT_NEAR(S(i, j), C(i, j), 6 * sd) << i << "," << j;
    }
}

TEST(GpSamples, RejectsBadParametersAndHugeN) {
  expect_input_error([] { gp_samples(0, 2, 2, 1); }, "num_rows");
  expect_input_error([] { gp_samples(10, 0, 2, 1); }, "output_dim");
  expect_input_error([] { gp_samples(10, 2, 0, 1); }, "latent_dim");
  expect_input_error([] { gp_samples(10, 2, 2, 1, 0.0); }, "kernel_variance");
  expect_input_error([] { gp_samples(10, 2, 2, 1, 1.0, -1.0); }, "lengthscale");
  expect_input_error([] { gp_samples(10, 2, 2, 1, 1.0, 1.0, std::nan("")); }, "noise_variance");
  try {
    gp_samples(kMaxExactGpRows + 1, 2, 2, 1);
    ADD_FAILURE() << "no error for N above the exact limit";
  } catch (const InputError& e) {
    EXPECT_EQ(e.context().key, "num_rows");
    EXPECT_NE(std::string(e.what()).find("gp_random_features"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------------------------

TEST(GpRandomFeatures, ShapesAndDeterminism) {
  const SyntheticData a = gp_random_features(300, 5, 3, 21), b = gp_random_features(300, 5, 3, 21);
  expect_shapes(a, 300, 5, 3);
  EXPECT_TRUE(bitwise_equal(a, b));
  EXPECT_FALSE((a.Y.array() == gp_random_features(300, 5, 3, 22).Y.array()).all());
  expect_labels_in(a, 0, 7);
}

// Each rank builds its own generator and generates only its rows: they must be the whole set's rows, bit for
// bit.
TEST(GpRandomFeatures, RowBlocksEqualTheWholeSetExactly) {
  const Index N = 1003, D = 7, Q = 3;
  const SyntheticData whole = gp_random_features(N, D, Q, 5, 1.3, 0.7, 0.05, 64);
  const std::vector<std::pair<Index, Index>> blocks = {{0, 1}, {1, 332}, {333, 0}, {333, 1}, {334, 669}};
  for (const auto& [begin, count] : blocks) {
    const GpRandomFeatures rank_generator(N, D, Q, 5, 1.3, 0.7, 0.05, 64);
    const SyntheticData part = rank_generator.generate_rows(begin, count);
    expect_shapes(part, count, D, Q);
    EXPECT_TRUE((part.Y.array() == whole.Y.middleRows(begin, count).array()).all()) << begin;
    EXPECT_TRUE((part.latent_true.array() == whole.latent_true.middleRows(begin, count).array()).all());
    EXPECT_TRUE(std::equal(part.labels.begin(), part.labels.end(), whole.labels.begin() + begin));
  }
}

TEST(GpRandomFeatures, SharesLatentsWithTheExactSampler) {
  const SyntheticData exact = gp_samples(100, 2, 3, 9), approx = gp_random_features(100, 2, 3, 9);
  EXPECT_TRUE((exact.latent_true.array() == approx.latent_true.array()).all());
  EXPECT_EQ(exact.labels, approx.labels);
}

// phi(x).phi(x) = variance exactly, so every entry of Y has mean 0 and second moment kernel_variance +
// noise_variance. Entries of one column are correlated through f, so the tolerances count columns (D = 400),
// with a short lengthscale to keep the per-column fluctuation small (about 4 standard deviations allowed).
TEST(GpRandomFeatures, MarginalVarianceIsKernelPlusNoise) {
  const SyntheticData data = gp_random_features(2000, 400, 2, 4, 2.0, 0.5, 0.25);
  EXPECT_NEAR(data.Y.mean(), 0.0, 0.1);
  EXPECT_NEAR(data.Y.array().square().mean(), 2.25, 0.15);
}

// Across the D i.i.d. output columns, the sample covariance approaches phi phi^T, which approaches K.
TEST(GpRandomFeatures, OutputCovarianceApproximatesKernel) {
  const Index N = 30, D = 3000;
  const double variance = 1.0, lengthscale = 0.9, noise = 0.05;
  const SyntheticData data = gp_random_features(N, D, 2, 12, variance, lengthscale, noise, 2048);
  Matrix C;
  EqArdKernel(variance, lengthscale, 2).cross(data.latent_true, data.latent_true, C);
  C.diagonal().array() += noise;
  const Matrix S = data.Y * data.Y.transpose() / static_cast<double>(D);
  EXPECT_LT((S - C).cwiseAbs().maxCoeff(), 0.2);
  EXPECT_LT((S - C).norm() / C.norm(), 0.08);
}

TEST(GpRandomFeatures, RejectsBadParameters) {
  expect_input_error([] { GpRandomFeatures(0, 2, 2, 1); }, "num_rows");
  expect_input_error([] { GpRandomFeatures(10, 2, 2, 1, 1.0, 1.0, 0.1, 7); }, "num_features");
  expect_input_error([] { GpRandomFeatures(10, 2, 2, 1, 1.0, 1.0, 0.1, 0); }, "num_features");
  expect_input_error([] { GpRandomFeatures(10, 2, 2, 1, 1.0, 0.0); }, "lengthscale");
  const GpRandomFeatures g(10, 2, 2, 1);
  expect_input_error([&] { g.generate_rows(-1, 2); }, "row_begin");
  expect_input_error([&] { g.generate_rows(11, 0); }, "row_begin");
  expect_input_error([&] { g.generate_rows(5, 6); }, "row_count");
  expect_input_error([&] { g.generate_rows(5, -1); }, "row_count");
  EXPECT_EQ(g.generate_rows(10, 0).Y.rows(), 0);
}

// ---------------------------------------------------------------------------------------------------------------

TEST(SwissRoll, ShapesLatentRangesAndLabels) {
  const SyntheticData data = swiss_roll(600, 10, 3, 0.05);
  expect_shapes(data, 600, 10, 2);
  EXPECT_TRUE(bitwise_equal(data, swiss_roll(600, 10, 3, 0.05)));
  EXPECT_FALSE((data.Y.array() == swiss_roll(600, 10, 4, 0.05).Y.array()).all());
  const double pi = std::numbers::pi;
  EXPECT_GE(data.latent_true.col(0).minCoeff(), 1.5 * pi);
  EXPECT_LE(data.latent_true.col(0).maxCoeff(), 4.5 * pi);
  EXPECT_GE(data.latent_true.col(1).minCoeff(), 0.0);
  EXPECT_LE(data.latent_true.col(1).maxCoeff(), 21.0);
  expect_labels_in(data, 0, 5);
  EXPECT_EQ(std::set<std::int64_t>(data.labels.begin(), data.labels.end()).size(), 6u);
  for (Index n = 0; n < 600; ++n)  // label = bin of t, increasing with t
    EXPECT_EQ(data.labels[n],
              static_cast<std::int64_t>((data.latent_true(n, 0) - 1.5 * pi) / (4.5 * pi - 1.5 * pi) * 6.0));
}

// The embedding is an isometry: noise-free pairwise distances equal those on the 3-D roll at latent_true.
TEST(SwissRoll, NoiseFreePointsLieOnTheRoll) {
  const SyntheticData data = swiss_roll(200, 8, 5, 0.0);
  Matrix roll(200, 3);
  for (Index n = 0; n < 200; ++n) {
    const double t = data.latent_true(n, 0), h = data.latent_true(n, 1);
    roll.row(n) << t * std::cos(t), h, t * std::sin(t);
  }
  for (Index i = 0; i < 200; i += 7)
    for (Index j = 0; j < 200; j += 3)
      EXPECT_NEAR(row_distance(data.Y, i, j), (roll.row(i) - roll.row(j)).norm(), 1e-9);
}

// Same seed, different noise: identical latents and map, and the difference is i.i.d. N(0, noise^2).
TEST(SwissRoll, DistanceToTheSurfaceIsTheNoise) {
  const SyntheticData clean = swiss_roll(2000, 6, 8, 0.0), noisy = swiss_roll(2000, 6, 8, 0.3);
  EXPECT_TRUE((clean.latent_true.array() == noisy.latent_true.array()).all());
  const RowMatrix residual = noisy.Y - clean.Y;
  EXPECT_NEAR(residual.mean(), 0.0, 0.02);
  EXPECT_NEAR(std::sqrt(residual.array().square().mean()), 0.3, 0.015);
}

TEST(SwissRoll, RejectsBadParameters) {
  expect_input_error([] { swiss_roll(0, 3, 1); }, "num_rows");
  expect_input_error([] { swiss_roll(10, 2, 1); }, "output_dim");
  expect_input_error([] { swiss_roll(10, 3, 1, -0.1); }, "noise");
}

// ---------------------------------------------------------------------------------------------------------------

TEST(RotatingPattern, ShapesLatentsAndLabels) {
  const SyntheticData data = rotating_pattern_cycle(64, 256, 1, 0.01);
  expect_shapes(data, 64, 256, 2);
  EXPECT_TRUE(bitwise_equal(data, rotating_pattern_cycle(64, 256, 1, 0.01)));
  EXPECT_FALSE((data.Y.array() == rotating_pattern_cycle(64, 256, 2, 0.0).Y.array()).all());
  for (Index k = 0; k < 64; ++k) {
    EXPECT_NEAR(data.latent_true.row(k).norm(), 1.0, 1e-12);
    EXPECT_EQ(data.labels[k], k / 8);
  }
  EXPECT_NEAR(data.latent_true(16, 0), 0.0, 1e-12);  // a quarter turn
  EXPECT_NEAR(data.latent_true(16, 1), 1.0, 1e-12);
}

// The pixel grid is invariant under quarter turns, so image 1 of 4 is image 0 with pixels rotated by 90
// degrees (counter-clockwise): img1(i, j) = img0(j, side - 1 - i).
TEST(RotatingPattern, QuarterTurnRotatesThePixelGrid) {
  const Index side = 12;
  const SyntheticData data = rotating_pattern_cycle(4, side * side, 3, 0.0);
  for (Index i = 0; i < side; ++i)
    for (Index j = 0; j < side; ++j)
      EXPECT_NEAR(data.Y(1, i * side + j), data.Y(0, j * side + side - 1 - i), 1e-12);
  EXPECT_GT((data.Y.row(1) - data.Y.row(0)).norm(), 0.5);  // and the pattern is not symmetric under it
}

// A closed 1-D manifold: neighbours (including last and first) are closer than images a quarter or half turn
// apart.
TEST(RotatingPattern, ConsecutiveImagesAreCloseAndTheCycleCloses) {
  const Index N = 64;
  const SyntheticData data = rotating_pattern_cycle(N, 256, 4, 0.01);
  double max_step = 0.0, min_far = std::numeric_limits<double>::infinity();
  for (Index k = 0; k < N; ++k) {
    max_step = std::max(max_step, row_distance(data.Y, k, (k + 1) % N));
    min_far = std::min(
        {min_far, row_distance(data.Y, k, (k + N / 4) % N), row_distance(data.Y, k, (k + N / 2) % N)});
  }
  EXPECT_LT(2.0 * max_step, min_far);
  const double closing = row_distance(data.Y, N - 1, 0), first_step = row_distance(data.Y, 0, 1);
  EXPECT_NEAR(closing, first_step, 0.25 * first_step);
}

TEST(RotatingPattern, RejectsBadParameters) {
  expect_input_error([] { rotating_pattern_cycle(0, 16, 1); }, "num_rows");
  expect_input_error([] { rotating_pattern_cycle(8, 250, 1); }, "output_dim");
  expect_input_error([] { rotating_pattern_cycle(8, 1, 1); }, "output_dim");
  expect_input_error([] { rotating_pattern_cycle(8, 16, 1, -1.0); }, "noise");
}

// ---------------------------------------------------------------------------------------------------------------

TEST(BinaryTree, ShapesLabelsAndLayout) {
  const SyntheticData data = binary_tree(3, 20, 10, 6);
  expect_shapes(data, 160, 10, 2);
  EXPECT_TRUE(bitwise_equal(data, binary_tree(3, 20, 10, 6)));
  EXPECT_FALSE((data.Y.array() == binary_tree(3, 20, 10, 7).Y.array()).all());
  for (Index n = 0; n < 160; ++n) EXPECT_EQ(data.labels[n], n / 20);
  // H-tree layout: leaf positions are distinct, and each leaf's nearest leaf is its sibling.
  for (Index leaf = 0; leaf < 8; ++leaf) {
    Index nearest = -1;
    double best = std::numeric_limits<double>::infinity();
    for (Index other = 0; other < 8; ++other) {
      if (other == leaf) continue;
      const double d = (data.latent_true.row(leaf * 20) - data.latent_true.row(other * 20)).norm();
      EXPECT_GT(d, 0.0);
      if (d < best) best = d, nearest = other;
    }
    EXPECT_EQ(nearest, leaf ^ 1);
  }
}

TEST(BinaryTree, PointsClusterByLeafAndLeavesByBranch) {
  const Index leaves = 8, per_leaf = 15;
  const SyntheticData data = binary_tree(3, per_leaf, 12, 2, 0.1);
  double max_within = 0.0, min_between = std::numeric_limits<double>::infinity();
  for (Index i = 0; i < leaves * per_leaf; ++i)
    for (Index j = i + 1; j < leaves * per_leaf; ++j) {
      const double d = row_distance(data.Y, i, j);
      if (data.labels[i] == data.labels[j])
        max_within = std::max(max_within, d);
      else
        min_between = std::min(min_between, d);
    }
  EXPECT_LT(max_within, min_between);
  // Leaf means: siblings are closer, on average, than leaves in different halves of the tree.
  Matrix means(leaves, 12);
  for (Index leaf = 0; leaf < leaves; ++leaf)
    means.row(leaf) = data.Y.middleRows(leaf * per_leaf, per_leaf).colwise().mean();
  double siblings = 0.0, across = 0.0;
  for (Index leaf = 0; leaf < leaves; leaf += 2)
    siblings += (means.row(leaf) - means.row(leaf + 1)).norm() / 4;
  for (Index a = 0; a < 4; ++a)
    for (Index b = 4; b < 8; ++b) across += (means.row(a) - means.row(b)).norm() / 16;
  EXPECT_LT(siblings, across);
}

TEST(BinaryTree, AnyNumberOfRowsSpreadOverTheLeavesInContiguousBlocks) {
  // An even split is the per-leaf tree, row for row.
  EXPECT_TRUE(bitwise_equal(binary_tree_rows(3, 8 * 20, 10, 6), binary_tree(3, 20, 10, 6)));
  const Index N = 101, leaves = 16;  // 101 = 16 * 6 + 5: five leaves get 7 rows, eleven get 6
  const SyntheticData data = binary_tree_rows(4, N, 5, 3);
  expect_shapes(data, N, 5, 2);
  std::vector<Index> counts(leaves, 0);
  for (Index n = 0; n < N; ++n) {
    ASSERT_GE(data.labels[n], 0);
    ASSERT_LT(data.labels[n], leaves);
    if (n > 0) {
      EXPECT_GE(data.labels[n], data.labels[n - 1]) << "leaves in order, rows grouped by leaf";
    }
    ++counts[static_cast<std::size_t>(data.labels[n])];
  }
  EXPECT_EQ(*std::min_element(counts.begin(), counts.end()), 6);
  EXPECT_EQ(*std::max_element(counts.begin(), counts.end()), 7);
  EXPECT_EQ(std::count(counts.begin(), counts.end(), 7), 5);
  expect_input_error([] { binary_tree_rows(4, 15, 3, 1); }, "num_rows");
}

TEST(BinaryTree, RejectsBadParameters) {
  expect_input_error([] { binary_tree(0, 5, 3, 1); }, "depth");
  expect_input_error([] { binary_tree(21, 1, 3, 1); }, "depth");
  expect_input_error([] { binary_tree(2, 0, 3, 1); }, "points_per_leaf");
  expect_input_error([] { binary_tree(2, 5, 0, 1); }, "output_dim");
  expect_input_error([] { binary_tree(2, 5, 3, 1, -0.5); }, "point_noise");
  expect_input_error([] { binary_tree(2, 5, 3, 1, 0.1, 0.0); }, "branch_scale");
}

}  // namespace
}  // namespace gplvm

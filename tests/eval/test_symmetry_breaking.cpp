// The symmetry-breaking diagnostic against closed forms: an intact circle (every edge the same
// chord: B_max = 1), a circle with a segment missing and points on a line (one long closing edge,
// its length over the common chord), the median of an even number of edges, objects by label, and
// the refusals (no edges, NaN latents, a zero median, a bad edge-list file).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <numbers>
#include <stdexcept>

#include "gplvm/core/error.hpp"
#include "gplvm/eval/edge_list_file.hpp"
#include "gplvm/eval/generating_graph.hpp"
#include "gplvm/eval/symmetry_breaking.hpp"

namespace gplvm {
namespace {

constexpr double kPi = std::numbers::pi;

// n points at angles start + k * step on a circle of radius r.
RowMatrix circle_points(Index n, double step, double r = 1.0, double start = 0.0) {
  RowMatrix x(n, 2);
  for (Index k = 0; k < n; ++k)
    x.row(k) << r * std::cos(start + step * static_cast<double>(k)),
        r * std::sin(start + step * static_cast<double>(k));
  return x;
}

SymmetryBreaking measure(const RowMatrix& x, const GeneratingGraph& g, double threshold = 3.0) {
  return measure_symmetry_breaking(x, g, threshold, {"test", "/latent/mean"});
}

TEST(SymmetryBreaking, IntactCircleHasEveryEdgeAtTheMedian) {
  const RowMatrix x = circle_points(72, 2 * kPi / 72, 5.0);
  const SymmetryBreaking s = measure(x, block_cycle_graph(72, 72));
  EXPECT_NEAR(s.median_length, 2 * 5.0 * std::sin(kPi / 72), 1e-13);  // the chord of 5 degrees
  EXPECT_NEAR(s.max_ratio, 1.0, 1e-12);
  EXPECT_FALSE(s.broken);
  ASSERT_EQ(s.ratios.size(), 72u);
  for (const double r : s.ratios) EXPECT_NEAR(r, 1.0, 1e-12);
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0].edges, 72);
}

TEST(SymmetryBreaking, CircleWithASegmentMissingHasTheGapOverTheChord) {
  // 72 points evenly over an arc of alpha = 300 degrees: 71 chords 2 sin(alpha / 142) and the closing
  // chord 2 sin(alpha / 2) across the missing 60 degrees.
  const double alpha = 300.0 / 180.0 * kPi;
  const RowMatrix x = circle_points(72, alpha / 71);
  const SymmetryBreaking s = measure(x, block_cycle_graph(72, 72));
  const double expected = std::sin(alpha / 2) / std::sin(alpha / 142);
  EXPECT_NEAR(s.max_ratio, expected, 1e-10 * expected);
  EXPECT_GT(expected, 3.0);
  EXPECT_TRUE(s.broken);
  EXPECT_NEAR(s.ratios.back(), expected, 1e-10 * expected);  // the closing edge 71 -> 0 is the long one
  // Above B_max the same embedding counts as intact.
  EXPECT_FALSE(measure(x, block_cycle_graph(72, 72), expected * 1.001).broken);
}

TEST(SymmetryBreaking, PointsAlongALineHaveTheClosingEdgeNMinusOneTimesTheMedian) {
  RowMatrix x(10, 3);
  for (Index k = 0; k < 10; ++k) x.row(k) << 0.5 * k, 0.5 * k, 0.0;  // spacing sqrt(0.5)
  const SymmetryBreaking s = measure(x, block_cycle_graph(10, 10));
  EXPECT_NEAR(s.median_length, std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(s.max_ratio, 9.0, 1e-13);
  EXPECT_TRUE(s.broken);
}

TEST(SymmetryBreaking, MedianOfAnEvenNumberOfEdgesIsTheMeanOfTheMiddleTwo) {
  // A 4-cycle on a line at 0, 1, 3, 6: edges 1, 2, 3 and the closing 6; median (2 + 3) / 2.
  RowMatrix x(4, 1);
  x << 0, 1, 3, 6;
  const SymmetryBreaking s = measure(x, block_cycle_graph(4, 4));
  EXPECT_DOUBLE_EQ(s.median_length, 2.5);
  EXPECT_DOUBLE_EQ(s.max_ratio, 6.0 / 2.5);
  EXPECT_FALSE(s.broken);
  EXPECT_TRUE(measure(x, block_cycle_graph(4, 4), 2.0).broken);
}

TEST(SymmetryBreaking, ObjectsByLabelAreMeasuredEachAgainstTheGraphsMedian) {
  // Object 7: an intact 12-gon; object 3: the same 12-gon with its points along 220 of 360 degrees
  // (one gap). Rows interleaved: a label's rows in row order form its cycle.
  const RowMatrix intact = circle_points(12, 2 * kPi / 12);
  const double alpha = 220.0 / 180.0 * kPi;
  const RowMatrix cut = circle_points(12, alpha / 11, 1.0);
  RowMatrix x(24, 2);
  std::vector<std::int64_t> labels(24);
  for (Index k = 0; k < 12; ++k) {
    x.row(2 * k) = intact.row(k);
    x.row(2 * k + 1) = cut.row(k) + Eigen::RowVector2d(10.0, 0.0);
    labels[2 * k] = 7;
    labels[2 * k + 1] = 3;
  }
  const GeneratingGraph g = label_cycle_graph(labels, "labels.h5");
  ASSERT_EQ(g.group_names, (std::vector<std::int64_t>{3, 7}));
  const SymmetryBreaking s = measure(x, g);
  // 24 edges: 11 chords of alpha / 11 (the shortest), 12 of 30 degrees, 1 gap; the 12th and 13th
  // shortest, whose mean is the median, are both 30-degree chords.
  const double c30 = 2 * std::sin(kPi / 12), gap = 2 * std::sin(alpha / 2);
  ASSERT_LT(2 * std::sin(alpha / 22), c30);
  const double median = c30;
  EXPECT_NEAR(s.median_length, median, 1e-14);
  EXPECT_NEAR(s.groups[0].max_ratio, gap / median, 1e-12);
  EXPECT_TRUE(s.groups[0].broken);
  EXPECT_NEAR(s.groups[1].max_ratio, c30 / median, 1e-12);
  EXPECT_FALSE(s.groups[1].broken);
  EXPECT_EQ(s.broken_groups(), 1);
  EXPECT_NEAR(s.max_ratio, gap / median, 1e-12);
}

TEST(SymmetryBreaking, BlocksOfRowsMakeOneCycleEach) {
  const GeneratingGraph g = block_cycle_graph(12, 4);
  ASSERT_EQ(g.edges.size(), 12u);
  EXPECT_EQ(g.group_names, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(g.edges[3].a, 3);  // the first block's closing edge
  EXPECT_EQ(g.edges[3].b, 0);
  EXPECT_EQ(g.edges[4].a, 4);
  EXPECT_EQ(g.edge_group[11], 2);
  EXPECT_THROW(block_cycle_graph(12, 5), InputError);
  EXPECT_THROW(block_cycle_graph(12, 2), InputError);
  EXPECT_THROW(label_cycle_graph({1, 1, 2, 2, 2}, "x.h5"), InputError);  // label 1 has 2 rows
}

TEST(SymmetryBreaking, RefusesNoEdgesNonFiniteLatentsAndAZeroMedian) {
  const RowMatrix x = circle_points(6, 1.0);
  EXPECT_THROW(measure(x, edge_list_graph(6, {})), InputError);
  RowMatrix bad = x;
  bad(2, 1) = std::nan("");
  EXPECT_THROW(measure(bad, block_cycle_graph(6, 6)), InputError);
  // Five of six rows at one point: edge lengths 0, 0, 0, 0, 1, 1, whose median is 0.
  RowMatrix collapsed = RowMatrix::Zero(6, 2);
  collapsed(5, 0) = 1.0;
  try {
    measure(collapsed, block_cycle_graph(6, 6));
    FAIL() << "a zero median was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("median"), std::string::npos) << e.what();
  }
  EXPECT_THROW(measure(x, block_cycle_graph(3, 3)), InputError);  // 6 latent rows, 3 graph rows
}

// ----------------------------------------------------------------------------- edge-list files

class EdgeListFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("gplvm-edges-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "edges.h5").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // An integer (or float) dataset of the given shape at /edges.
  void write(const std::vector<hsize_t>& dims, const std::vector<std::int64_t>& values,
             bool as_float = false) {
    const hid_t f = H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t d = H5Dcreate2(f, "/edges", as_float ? H5T_IEEE_F64LE : H5T_STD_I64LE, space, H5P_DEFAULT,
                               H5P_DEFAULT, H5P_DEFAULT);
    if (!values.empty()) H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(d);
    H5Sclose(space);
    H5Fclose(f);
  }

  // The InputError's message and value, for checks that it names what is wrong.
  std::string error_of(Index rows, const std::string& dataset = "/edges") {
    try {
      read_edge_list(path_, dataset, rows, Communicator());
    } catch (const InputError& e) {
      EXPECT_EQ(e.context().file, path_);
      return std::string(e.what()) + " | " + e.context().value;
    }
    return "no error";
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(EdgeListFile, ReadsEdgesGroupedByConnectedComponent) {
  // Two triangles, {4, 5, 6} given first and {0, 1, 2}; row 3 on no edge.
  write({6, 2}, {4, 5, 5, 6, 6, 4, 0, 1, 1, 2, 2, 0});
  const GeneratingGraph g = read_edge_list(path_, "/edges", 7, Communicator());
  ASSERT_EQ(g.edges.size(), 6u);
  EXPECT_EQ(g.group_names, (std::vector<std::int64_t>{0, 4}));
  EXPECT_EQ(g.edges[0].a, 0);
  EXPECT_EQ(g.edges[0].b, 1);
  EXPECT_EQ(g.edge_group[3], 1);
}

TEST_F(EdgeListFile, NamesTheOffendingValue) {
  write({2, 2}, {0, 1, 1, 9});
  const std::string out_of_range = error_of(5);
  EXPECT_NE(out_of_range.find("outside"), std::string::npos) << out_of_range;
  EXPECT_NE(out_of_range.find("edge 1: row 9"), std::string::npos) << out_of_range;
  write({2, 2}, {0, 1, -1, 2});
  EXPECT_NE(error_of(5).find("row -1"), std::string::npos);
  write({2, 2}, {0, 1, 3, 3});
  EXPECT_NE(error_of(5).find("itself"), std::string::npos);
  write({2, 3}, {0, 1, 2, 1, 2, 3});
  EXPECT_NE(error_of(5).find("2 columns"), std::string::npos);
  write({4}, {0, 1, 1, 2});
  EXPECT_NE(error_of(5).find("1"), std::string::npos);
  write({2, 2}, {0, 1, 1, 2}, true);
  EXPECT_NE(error_of(5).find("integer"), std::string::npos);
  write({0, 2}, {});
  EXPECT_NE(error_of(5).find("empty"), std::string::npos);
  EXPECT_NE(error_of(5, "/missing"), "no error");
}

}  // namespace
}  // namespace gplvm

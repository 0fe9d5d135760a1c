// final_tenth_change against values worked out by hand from its definition.
#include <gtest/gtest.h>

#include "gplvm/train/curve_plateau.hpp"

namespace gplvm {
namespace {

std::vector<CurvePoint> curve_of(std::size_t n, double (*objective)(std::uint64_t)) {
  std::vector<CurvePoint> curve;
  for (std::uint64_t t = 1; t <= n; ++t) curve.push_back({t, 0, objective(t), 0.0});
  return curve;
}

TEST(FinalTenthChange, LinearCurveComparesTheMeansOfTwoTwentieths) {
  // 100 points: the last 5 (steps 96-100, mean 98) against the 5 before the last 10 (86-90, mean 88).
  const auto change = final_tenth_change(curve_of(100, [](std::uint64_t t) { return double(t); }));
  ASSERT_TRUE(change.has_value());
  EXPECT_DOUBLE_EQ(*change, 10.0 / 98.0);
}

TEST(FinalTenthChange, FallingCurveIsNegativeAndNoiseAveragesOut) {
  const auto falling = final_tenth_change(curve_of(200, [](std::uint64_t t) { return -double(t); }));
  ASSERT_TRUE(falling.has_value());
  EXPECT_LT(*falling, 0.0);
  // Alternating +-1 around 100 with an even number of points per mean: no change at all.
  const auto noisy = final_tenth_change(curve_of(400, [](std::uint64_t t) { return t % 2 ? 101.0 : 99.0; }));
  ASSERT_TRUE(noisy.has_value());
  EXPECT_DOUBLE_EQ(*noisy, 0.0);
}

TEST(FinalTenthChange, ObjectiveCrossingZeroIsJudgedAgainstTheRunsProgress) {
  // t - 50 over 100 points: final mean 48, before 38, first (steps 1-5) -47: the scale is the
  // progress 95, not |48|.
  const auto change = final_tenth_change(curve_of(100, [](std::uint64_t t) { return double(t) - 50.0; }));
  ASSERT_TRUE(change.has_value());
  EXPECT_DOUBLE_EQ(*change, 10.0 / 95.0);
}

TEST(FinalTenthChange, ShortCurvesAreNotJudged) {
  EXPECT_FALSE(final_tenth_change(curve_of(39, [](std::uint64_t) { return 1.0; })).has_value());
  EXPECT_TRUE(final_tenth_change(curve_of(40, [](std::uint64_t) { return 1.0; })).has_value());
}

}  // namespace
}  // namespace gplvm

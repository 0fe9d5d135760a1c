#include <gtest/gtest.h>

#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/core/keyed_permutation.hpp"

namespace gplvm {
namespace {

std::vector<std::uint64_t> materialise(const KeyedPermutation& p) {
  std::vector<std::uint64_t> out(p.size());
  for (std::uint64_t i = 0; i < p.size(); ++i) out[i] = p(i);
  return out;
}

class KeyedPermutationSizes : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(KeyedPermutationSizes, IsABijection) {
  const std::uint64_t n = GetParam();
  const auto perm = materialise(KeyedPermutation(n, 123, 5));
  std::vector<int> seen(n, 0);
  for (auto v : perm) {
    ASSERT_LT(v, n);
    ++seen[v];
  }
  for (std::uint64_t i = 0; i < n; ++i) EXPECT_EQ(seen[i], 1) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(Sizes, KeyedPermutationSizes,
                         ::testing::Values(1, 2, 3, 5, 16, 17, 1000, 4097, 60000));

TEST(KeyedPermutation, DependsOnSeedAndEpochOnly) {
  const auto a = materialise(KeyedPermutation(1000, 1, 0));
  EXPECT_EQ(a, materialise(KeyedPermutation(1000, 1, 0)));
  EXPECT_NE(a, materialise(KeyedPermutation(1000, 2, 0)));
  EXPECT_NE(a, materialise(KeyedPermutation(1000, 1, 1)));
}

TEST(KeyedPermutation, LooksUniform) {
  // Position 0 should hold each of n values about equally often over many epochs, and a
  // permutation should not leave many elements in place (expected fixed points: 1).
  const std::uint64_t n = 10;
  const int epochs = 20000;
  std::vector<int> first(n, 0);
  double fixed_points = 0;
  for (int e = 0; e < epochs; ++e) {
    KeyedPermutation p(n, 77, e);
    ++first[p(0)];
    for (std::uint64_t i = 0; i < n; ++i) fixed_points += (p(i) == i);
  }
  for (std::uint64_t v = 0; v < n; ++v) EXPECT_NEAR(first[v] / double(epochs), 0.1, 0.012) << v;
  EXPECT_NEAR(fixed_points / epochs, 1.0, 0.05);
}

TEST(KeyedPermutation, RejectsEmptySetAndOutOfRangePosition) {
  EXPECT_THROW(KeyedPermutation(0, 1, 0), InputError);
  KeyedPermutation p(5, 1, 0);
  EXPECT_THROW(p(5), InputError);
}

}  // namespace
}  // namespace gplvm

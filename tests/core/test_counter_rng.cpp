#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// Known-answer vectors published with Random123 (kat_vectors, philox4x32 10 rounds).
TEST(CounterRng, PhiloxMatchesPublishedKnownAnswers) {
  using B = CounterRng::Block;
  EXPECT_EQ(CounterRng::philox(B{0, 0, 0, 0}, {0, 0}), (B{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(CounterRng::philox(B{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (B{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(CounterRng::philox(B{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (B{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(CounterRng, DrawIsAPureFunctionOfItsKey) {
  const CounterRng a(42), b(42);
  // Same key in a different call order gives the same value: no hidden state.
  const double late = b.uniform(RngPurpose::test, 3, 7, 11);
  for (int i = 0; i < 100; ++i) a.uniform(RngPurpose::test, 0, 0, i);
  EXPECT_EQ(a.uniform(RngPurpose::test, 3, 7, 11), late);
}

TEST(CounterRng, EachKeyComponentChangesTheDraw) {
  const CounterRng rng(42);
  const double base = rng.uniform(RngPurpose::test, 3, 7, 11);
  EXPECT_NE(CounterRng(43).uniform(RngPurpose::test, 3, 7, 11), base);
  EXPECT_NE(rng.uniform(RngPurpose::generator, 3, 7, 11), base);
  EXPECT_NE(rng.uniform(RngPurpose::test, 4, 7, 11), base);
  EXPECT_NE(rng.uniform(RngPurpose::test, 3, 8, 11), base);
  EXPECT_NE(rng.uniform(RngPurpose::test, 3, 7, 12), base);
  EXPECT_NE(rng.uniform(RngPurpose::test, 3, 7, 11ull + (1ull << 32)), base);  // high index word
}

TEST(CounterRng, UniformMomentsAndRange) {
  const CounterRng rng(7);
  const int n = 200000;
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform(RngPurpose::test, 0, 0, i);
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum_sq += u * u;
  }
  // Standard errors: mean 1/sqrt(12 n) ~ 6.5e-4, so 5 sigma bounds.
  EXPECT_NEAR(sum / n, 0.5, 3.3e-3);
  EXPECT_NEAR(sum_sq / n - 0.25, 1.0 / 12.0, 2e-3);
}

TEST(CounterRng, NormalMomentsMatchStandardNormal) {
  const CounterRng rng(9);
  const int n = 200000;
  double m1 = 0, m2 = 0, m4 = 0;
  int beyond_two_sigma = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal(RngPurpose::test, 1, 2, i);
    m1 += z;
    m2 += z * z;
    m4 += z * z * z * z;
    beyond_two_sigma += std::abs(z) > 2.0;
  }
  EXPECT_NEAR(m1 / n, 0.0, 5 * std::sqrt(1.0 / n));
  EXPECT_NEAR(m2 / n, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(m4 / n, 3.0, 5 * std::sqrt(96.0 / n));
  // P(|z| > 2) = 0.0455; binomial standard error ~ 4.7e-4.
  EXPECT_NEAR(static_cast<double>(beyond_two_sigma) / n, 0.0455, 2.5e-3);
}

TEST(CounterRng, OutOfRangeKeyIsAnError) {
  const CounterRng rng(1);
  EXPECT_THROW(rng.uniform(RngPurpose::test, 1ull << 24, 0, 0), InputError);
  EXPECT_THROW(rng.uniform(RngPurpose::test, 0, 1ull << 32, 0), InputError);
}

}  // namespace
}  // namespace gplvm

// The active set's draws (models/active_set.hpp): M distinct rows of [0, N), a function of (seed,
// refresh) alone, every row equally likely (frequencies over many refreshes against M/N within
// five binomial standard deviations), and a fresh draw at each refresh.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "gplvm/core/error.hpp"
#include "gplvm/models/active_set.hpp"

namespace gplvm {
namespace {

TEST(ActiveSetRows, AreDistinctRowsKeyedBySeedAndRefresh) {
  for (const std::uint64_t n : {1ull, 7ull, 50ull, 1000003ull}) {
    const std::uint64_t m = std::min<std::uint64_t>(n, 50);
    const std::vector<std::uint64_t> rows = active_set_rows(n, m, 3, 4);
    ASSERT_EQ(rows.size(), m);
    EXPECT_EQ(std::set<std::uint64_t>(rows.begin(), rows.end()).size(), m) << n;
    for (const std::uint64_t r : rows) EXPECT_LT(r, n);
    EXPECT_EQ(rows, active_set_rows(n, m, 3, 4));
    if (n > m) {
      EXPECT_NE(rows, active_set_rows(n, m, 3, 5));
      EXPECT_NE(rows, active_set_rows(n, m, 4, 4));
    }
  }
}

TEST(ActiveSetRows, DrawEveryRowWithProbabilityMOverN) {
  constexpr std::uint64_t n = 12, m = 4, draws = 6000;
  std::vector<double> count(n, 0.0);
  for (std::uint64_t r = 0; r < draws; ++r)
    for (const std::uint64_t row : active_set_rows(n, m, 11, r)) count[row] += 1;
  const double p = static_cast<double>(m) / n, sd = std::sqrt(draws * p * (1 - p));
  for (std::uint64_t i = 0; i < n; ++i) EXPECT_NEAR(count[i], draws * p, 5 * sd) << i;
}

TEST(ActiveSetRows, RefuseMoreRowsThanTheData) {
  EXPECT_THROW(active_set_rows(5, 6, 0, 0), InputError);
  EXPECT_THROW(active_set_rows(5, 0, 0, 0), InputError);
}

}  // namespace
}  // namespace gplvm

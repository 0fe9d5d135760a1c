// graph/squared_distances.hpp: every entry of a block is a function of its two rows alone, bit for
// bit (the property that makes exact neighbour graphs equal at every rank count): the blocked product
// equals the one-pair form at every position, including the rows and columns left over by its
// register blocks, and a row's distance to its own copy is exactly 0.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>

#include "gplvm/graph/squared_distances.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

TEST(SquaredDistances, EveryEntryEqualsThePairFormBitForBit) {
  for (const auto [na, nb, d] : {std::array<Index, 3>{7, 70, 13}, {4, 32, 1}, {9, 3, 50}, {1, 1, 2}}) {
    RowMatrix A = testing::random_normal(na, d, 11 + na);
    const RowMatrix B = testing::random_normal(nb, d, 17 + nb);
    A.row(na - 1) = B.row(nb - 1);  // an exact duplicate
    const Vector a_norms = row_squared_norms(A), b_norms = row_squared_norms(B);
    RowMatrix out;
    squared_distances(A, a_norms, B, b_norms, out);
    ASSERT_EQ(out.rows(), na);
    ASSERT_EQ(out.cols(), nb);
    for (Index i = 0; i < na; ++i)
      for (Index j = 0; j < nb; ++j)
        EXPECT_EQ(std::bit_cast<std::uint64_t>(out(i, j)),
                  std::bit_cast<std::uint64_t>(
                      squared_distance(A.row(i).data(), a_norms[i], B.row(j).data(), b_norms[j], d)))
            << na << " x " << nb << " x " << d << " at " << i << ", " << j;
    EXPECT_EQ(out(na - 1, nb - 1), 0.0);
    // Against the direct sum of squared differences, to rounding of the product form.
    for (Index i = 0; i < na; ++i)
      for (Index j = 0; j < nb; ++j)
        EXPECT_NEAR(out(i, j), (A.row(i) - B.row(j)).squaredNorm(), 1e-12 * (a_norms[i] + b_norms[j]));
  }
}

}  // namespace
}  // namespace gplvm

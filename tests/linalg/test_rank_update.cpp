// rank_update_lower against its definition: the lower triangle of C + alpha A A^T to rounding, at
// orders around the 48-row thread blocks, the order (96) where the packed path takes over and the
// engine's cache blocks, on operands that are
// blocks of larger matrices, with the strict upper triangle of C left exactly as it was.
#include "gplvm/linalg/rank_update.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

namespace gplvm {
namespace {

void check_rank_update(Index n, Index k) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " k=" << k);
  std::srand(static_cast<unsigned>(n * 7 + k));
  const Matrix a_storage = Matrix::Random(n + 3, k + 2);
  const auto a = a_storage.block(1, 2, n, k);  // outer stride n + 3
  Matrix c_storage = Matrix::Random(n + 2, n + 1);
  c_storage.block(1, 1, n, n)
      .triangularView<Eigen::StrictlyUpper>()
      .setConstant(std::numeric_limits<double>::quiet_NaN());
  const Matrix before = c_storage.block(1, 1, n, n);
  Matrix border = c_storage;
  const double alpha = 0.5;

  rank_update_lower(a, alpha, c_storage.block(1, 1, n, n));

  const Matrix after = c_storage.block(1, 1, n, n);
  const Matrix expected = before + alpha * a * a.transpose();
  for (Index j = 0; j < n; ++j)
    for (Index i = 0; i < n; ++i) {
      if (i < j) {
        EXPECT_TRUE(std::isnan(after(i, j))) << "upper entry (" << i << ", " << j << ") was written";
      } else {
        const double scale = 1.0 + alpha * a.row(i).norm() * a.row(j).norm();
        EXPECT_NEAR(after(i, j), expected(i, j),
                    64.0 * (k + 1) * std::numeric_limits<double>::epsilon() * scale)
            << "at (" << i << ", " << j << ")";
      }
    }
  // Nothing outside the block changed: its first and last rows and its first column.
  EXPECT_EQ(c_storage.row(0), border.row(0));
  EXPECT_EQ(c_storage.row(n + 1), border.row(n + 1));
  EXPECT_EQ(c_storage.col(0), border.col(0));
}

TEST(RankUpdate, LowerTriangleMatchesDefinitionAroundBlockEdges) {
  for (Index n : {1, 2, 47, 48, 49, 95, 96, 97, 127, 128, 143, 144, 145, 200})
    for (Index k : {1, 13, 300}) check_rank_update(n, k);
}

// The packed path's own blocks: several row blocks of the engine (192 fp64 rows), k split into
// k blocks (784 = 392 + 392, 800 = 400 + 400), and more columns than one B panel holds (2048).
TEST(RankUpdate, LowerTriangleMatchesDefinitionAcrossEngineBlocks) {
  for (Index k : {784, 800}) check_rank_update(400, k);
  check_rank_update(2100, 13);
}

TEST(RankUpdate, EmptyInnerDimensionLeavesCUnchanged) {
  const Matrix a(5, 0);
  Matrix c = Matrix::Random(5, 5);
  const Matrix before = c;
  rank_update_lower(a, 2.0, c);
  EXPECT_EQ(c, before);
}

TEST(RankUpdate, MismatchedShapesAreRejected) {
  const Matrix a = Matrix::Random(4, 3);
  Matrix c = Matrix::Zero(3, 3);
  EXPECT_THROW(rank_update_lower(a, 1.0, c), std::invalid_argument);
}

}  // namespace
}  // namespace gplvm

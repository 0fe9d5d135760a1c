// The triangular solves against their definition: L X = B and L^T X = B to rounding, on orders at
// and around every boundary (16-row strips, the 256-row panel limit above which the solve splits
// recursively), on right-hand-side counts around the 12-column panel (and its every tail width),
// on a right-hand side that is a block of a larger matrix (outer stride != rows), and with the
// strict upper triangle of L filled with garbage that must not be read.
#include "gplvm/linalg/triangular_solve.hpp"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <limits>

namespace gplvm {
namespace {

// A lower Cholesky factor of a random SPD matrix with a moderate condition number, its upper
// triangle set to NaN so that any read of it poisons the result.
Matrix poisoned_factor(Index n, unsigned seed) {
  std::srand(seed);
  const Matrix G = Matrix::Random(n, n);
  const Matrix K = G * G.transpose() + static_cast<double>(n) * Matrix::Identity(n, n);
  Matrix L = K.llt().matrixL();
  L.triangularView<Eigen::StrictlyUpper>().setConstant(std::numeric_limits<double>::quiet_NaN());
  return L;
}

void check_solves(Index n, Index m) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " m=" << m);
  const Matrix L = poisoned_factor(n, static_cast<unsigned>(n * 31 + m));
  const Matrix lower = L.triangularView<Eigen::Lower>();
  Matrix storage = Matrix::Random(n + 4, m + 1);  // B is an interior block: outer stride n + 4
  const Matrix B = storage.block(2, 1, n, m);
  const double tolerance = 50.0 * static_cast<double>(n) * std::numeric_limits<double>::epsilon();

  solve_lower_triangular_in_place(L, storage.block(2, 1, n, m));
  Matrix X = storage.block(2, 1, n, m);
  ASSERT_TRUE(X.allFinite()) << "the upper triangle of L was read";
  EXPECT_LE((lower * X - B).norm(), tolerance * (lower.norm() * X.norm() + B.norm()));

  storage.block(2, 1, n, m) = B;
  solve_lower_transposed_in_place(L, storage.block(2, 1, n, m));
  X = storage.block(2, 1, n, m);
  ASSERT_TRUE(X.allFinite()) << "the upper triangle of L was read";
  EXPECT_LE((lower.transpose() * X - B).norm(), tolerance * (lower.norm() * X.norm() + B.norm()));
}

TEST(TriangularSolve, SolvesAtAndAroundEverySplit) {
  for (Index n : {1, 2, 8, 9, 15, 16, 17, 31, 33, 64, 100, 255, 256, 257, 520})
    for (Index m : {1, 7, 11, 12, 13, 100}) check_solves(n, m);
}

TEST(TriangularSolve, AgreesWithEigensSolverToRounding) {
  const Index n = 200, m = 50;
  const Matrix L = poisoned_factor(n, 5);
  const Matrix B = Matrix::Random(n, m);
  Matrix ours = B, eigen = B;
  solve_lower_triangular_in_place(L, ours);
  L.triangularView<Eigen::Lower>().solveInPlace(eigen);
  EXPECT_LE((ours - eigen).norm(), 1e-13 * eigen.norm());
  ours = B;
  eigen = B;
  solve_lower_transposed_in_place(L, ours);
  L.triangularView<Eigen::Lower>().transpose().solveInPlace(eigen);
  EXPECT_LE((ours - eigen).norm(), 1e-13 * eigen.norm());
}

}  // namespace
}  // namespace gplvm

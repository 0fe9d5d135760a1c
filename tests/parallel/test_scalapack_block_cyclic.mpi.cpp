// BLACS grids, block-cyclic index maps and the checked ScaLAPACK wrappers, under mpirun at 1-4
// ranks: the maps against ScaLAPACK's own tools, layouts round-tripped through pdgemr2d, and each
// wrapper against the dense Eigen result.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/linalg/lapack.hpp"
#include "gplvm/parallel/blacs_grid.hpp"
#include "gplvm/parallel/block_cyclic_matrix.hpp"
#include "gplvm/parallel/scalapack.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::random_normal;

// Every grid shape the launched rank count allows, including smaller grids with idle ranks.
std::vector<std::pair<int, int>> grid_shapes(int ranks) {
  std::vector<std::pair<int, int>> out;
  for (auto [r, c] : {std::pair{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 3}, {3, 1}, {1, 4}, {4, 1}})
    if (r * c <= ranks) out.emplace_back(r, c);
  return out;
}

Matrix spd(Index n, std::uint64_t seed) {
  const Matrix G = random_normal(n, n, seed);
  return G * G.transpose() + static_cast<double>(n) * Matrix::Identity(n, n);
}

void fill_from(BlockCyclicMatrix& m, const Matrix& dense) {
  m.fill([&](Index i, Index j) { return dense(i, j); });
}

TEST(BlockCyclicAxis, EveryGlobalIndexHasOneOwnerAndMapsBackLikeScaLapack) {
  for (Index n : {0, 1, 7, 16, 157})
    for (Index block : {1, 3, 16, 50, 64})
      for (int procs : {1, 2, 3, 4})
        for (int source = 0; source < procs; ++source) {
          const BlockCyclicAxis axis{n, block, procs, source};
          std::vector<std::vector<int>> seen(procs);
          Index total = 0;
          for (int p = 0; p < procs; ++p) {
            const Index count = axis.local_count(p);
            ASSERT_EQ(count, scalapack::numroc(n, block, p, source, procs)) << n << " " << block << " " << p;
            seen[p].assign(count, 0);
            total += count;
            for (Index l = 0; l < count; ++l)
              ASSERT_EQ(axis.global_index(l, p), scalapack::indxl2g(l, block, p, source, procs));
          }
          ASSERT_EQ(total, n);
          for (Index g = 0; g < n; ++g) {
            const int owner = axis.owner(g);
            const Index local = axis.local_index(g);
            ASSERT_EQ(owner, scalapack::indxg2p(g, block, source, procs));
            ASSERT_EQ(local, scalapack::indxg2l(g, block, procs));
            ASSERT_LT(local, axis.local_count(owner));
            ASSERT_EQ(axis.global_index(local, owner), g);
            ++seen[owner][local];
          }
          for (const auto& counts : seen)
            for (int c : counts) ASSERT_EQ(c, 1);  // each local slot receives exactly one global index
        }
}

TEST(BlacsGrid, DefaultIsOneRowOnANodeAndSixteenTimesAsWideAtScale) {
  for (int p : {1, 2, 4, 7, 12, 16, 63}) EXPECT_EQ(BlacsGrid::default_shape(p), std::pair(1, p)) << p;
  EXPECT_EQ(BlacsGrid::default_shape(64), std::pair(2, 32));
  EXPECT_EQ(BlacsGrid::default_shape(96), std::pair(2, 48));
  EXPECT_EQ(BlacsGrid::default_shape(127), std::pair(1, 127));  // prime: one row
  EXPECT_EQ(BlacsGrid::default_shape(144), std::pair(3, 48));
  EXPECT_EQ(BlacsGrid::default_shape(256), std::pair(4, 64));
  EXPECT_EQ(BlacsGrid::default_shape(1024), std::pair(8, 128));
  for (int p = 1; p <= 2048; ++p) {
    const auto [rows, cols] = BlacsGrid::default_shape(p);
    ASSERT_EQ(rows * cols, p);
    ASSERT_LE(16 * rows * rows, std::max(p, 16));
    for (int d = rows + 1; 16 * d * d <= p; ++d) ASSERT_NE(p % d, 0) << "a taller grid fits " << p;
  }
  const Communicator comm;
  const BlacsGrid grid(comm);
  EXPECT_EQ(grid.nprow() * grid.npcol(), comm.size());
  EXPECT_LE(grid.nprow(), grid.npcol());
  EXPECT_TRUE(grid.is_member());
  EXPECT_EQ(grid.myrow() * grid.npcol() + grid.mycol(), comm.rank());  // row-major placement
}

TEST(BlacsGrid, SmallerGridLeavesTheOtherRanksIdle) {
  const Communicator comm;
  for (auto [r, c] : grid_shapes(comm.size())) {
    const BlacsGrid grid(comm, r, c);
    const bool member = comm.rank() < r * c;
    EXPECT_EQ(grid.is_member(), member);
    EXPECT_EQ(grid.context() >= 0, member);
    EXPECT_EQ(grid.myrow(), member ? comm.rank() / c : -1);
    EXPECT_EQ(grid.mycol(), member ? comm.rank() % c : -1);
  }
}

TEST(BlacsGrid, GridLargerThanTheRankCountIsAnInputError) {
  const Communicator comm;
  const int rows = comm.size() + 1;
  try {
    BlacsGrid grid(comm, rows, 2);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(std::to_string(rows) + "x2"), std::string::npos) << what;
    EXPECT_NE(what.find("only " + std::to_string(comm.size())), std::string::npos) << what;
  }
  EXPECT_THROW(BlacsGrid(comm, 0, 2), InputError);
}

TEST(BlockCyclicMatrix, FillGatherOwnershipAndBlocksAgree) {
  const Communicator comm;
  const Matrix dense = random_normal(37, 23, 11);
  for (auto [r, c] : grid_shapes(comm.size()))
    for (int block : {4, 7, 64}) {
      const BlacsGrid grid(comm, r, c);
      BlockCyclicMatrix m(grid, dense.rows(), dense.cols(), block, block);
      fill_from(m, dense);
      EXPECT_EQ(m.gather_all(), dense) << r << "x" << c << " block " << block;
      // Each entry owned by exactly one rank; local and global maps are inverse.
      Matrix owners = Matrix::Zero(dense.rows(), dense.cols());
      for (Index j = 0; j < dense.cols(); ++j)
        for (Index i = 0; i < dense.rows(); ++i)
          if (m.owns(i, j)) {
            owners(i, j) = 1;
            ASSERT_EQ(m.global_row(m.local_row(i)), i);
            ASSERT_EQ(m.global_col(m.local_col(j)), j);
            ASSERT_EQ(m.local()(m.local_row(i), m.local_col(j)), dense(i, j));
          }
      comm.allreduce_sum(owners);
      EXPECT_EQ(owners, Matrix::Ones(dense.rows(), dense.cols()));
      // The blocks tile the local matrix exactly and map to contiguous global ranges.
      Index covered = 0;
      m.for_each_block([&](const LocalBlock& b) {
        covered += b.rows * b.cols;
        EXPECT_EQ(m.local().block(b.local_row, b.local_col, b.rows, b.cols),
                  dense.block(b.global_row, b.global_col, b.rows, b.cols));
      });
      EXPECT_EQ(covered, m.local().size());
    }
}

TEST(ScaLapack, Pdgemr2dMovesBetweenGridsBlockSizesAndSubmatrices) {
  const Communicator comm;
  const Matrix dense = random_normal(29, 11, 12);
  const BlacsGrid all(comm, comm.size(), 1);
  for (auto [r, c] : grid_shapes(comm.size())) {
    const BlacsGrid grid(comm, r, c);
    BlockCyclicMatrix source(all, dense.rows(), dense.cols(), 5, 3, comm.size() - 1, 0);
    fill_from(source, dense);
    BlockCyclicMatrix target(grid, dense.rows(), dense.cols(), 4, 4);
    scalapack::pdgemr2d(dense.rows(), dense.cols(), source, 0, 0, target, 0, 0, all);
    EXPECT_EQ(target.gather_all(), dense);
    // A sub-block into an offset position of a larger matrix.
    BlockCyclicMatrix big(grid, 40, 20, 6, 6);
    scalapack::pdgemr2d(10, 7, source, 3, 2, big, 20, 9, all);
    Matrix gathered = big.gather_all();
    EXPECT_EQ(gathered.block(20, 9, 10, 7), dense.block(3, 2, 10, 7));
    gathered.block(20, 9, 10, 7).setZero();
    EXPECT_EQ(gathered, Matrix::Zero(40, 20));  // nothing written outside the target block
  }
}

TEST(ScaLapack, FactorisationSolvesAndProductsMatchEigen) {
  const Communicator comm;
  const Index n = 45;
  const Matrix A = spd(n, 13), B = random_normal(n, 4, 14);
  const Eigen::LLT<Matrix> llt(A);
  const Matrix L = llt.matrixL();
  for (auto [r, c] : grid_shapes(comm.size()))
    for (int block : {8, 64}) {
      const BlacsGrid grid(comm, r, c);
      BlockCyclicMatrix a(grid, n, n, block, block), b(grid, n, 4, block, block);
      fill_from(a, A);
      fill_from(b, B);
      ASSERT_EQ(scalapack::pdpotrf(a), 0);
      const Matrix factor = a.gather_all().triangularView<Eigen::Lower>();
      EXPECT_LT((factor - L).norm(), 1e-12 * L.norm());

      BlockCyclicMatrix x = b;
      scalapack::pdpotrs(a, x);
      EXPECT_LT((x.gather_all() - llt.solve(B)).norm(), 1e-12 * llt.solve(B).norm());

      BlockCyclicMatrix half = b;
      scalapack::pdtrsm('L', 'L', 'N', 'N', 1.0, a, half);
      const Matrix expected_half = L.triangularView<Eigen::Lower>().solve(B);
      EXPECT_LT((half.gather_all() - expected_half).norm(), 1e-12 * expected_half.norm());

      BlockCyclicMatrix product(grid, 4, 4, block, block);
      scalapack::pdgemm('T', 'N', 1.0, b, x, 0.0, product);
      EXPECT_LT((product.gather_all() - B.transpose() * llt.solve(B)).norm(),
                1e-11 * product.gather_all().norm());

      scalapack::pdpotri(a);
      const Matrix inverse = A.inverse();
      const Matrix lower = a.gather_all().triangularView<Eigen::Lower>();
      EXPECT_LT((lower - Matrix(inverse.triangularView<Eigen::Lower>())).norm(), 1e-12 * inverse.norm());

      scalapack::pdsyrk('L', 'N', 0.5, b, -2.0, a);  // lower triangle of B B^T / 2 - 2 A^{-1}
      const Matrix expected = 0.5 * B * B.transpose() - 2.0 * inverse;
      const Matrix got = a.gather_all().triangularView<Eigen::Lower>();
      EXPECT_LT((got - Matrix(expected.triangularView<Eigen::Lower>())).norm(), 1e-12 * expected.norm());
    }
}

TEST(ScaLapack, PdpotrfReturnsTheFailingColumnInsteadOfThrowing) {
  const Communicator comm;
  Matrix A = spd(30, 15);
  A(17, 17) = -1e4;
  Matrix copy = A;
  int n = 30, lda = 30, info = 0;
  const char uplo = 'L';
  lapack::dpotrf_(&uplo, &n, copy.data(), &lda, &info);
  ASSERT_EQ(info, 18);
  for (auto [r, c] : grid_shapes(comm.size())) {
    const BlacsGrid grid(comm, r, c);
    BlockCyclicMatrix a(grid, 30, 30, 7, 7);
    fill_from(a, A);
    EXPECT_EQ(scalapack::pdpotrf(a), grid.is_member() ? 18 : 0);
  }
}

TEST(ScaLapack, NonConformingShapesThrowInsteadOfAborting) {
  const Communicator comm;
  const BlacsGrid grid(comm);
  BlockCyclicMatrix a(grid, 10, 8), b(grid, 9, 3), c(grid, 10, 3), rect(grid, 10, 12);
  EXPECT_THROW(scalapack::pdgemm('N', 'N', 1.0, a, b, 0.0, c), Error);
  EXPECT_THROW(scalapack::pdtrsm('L', 'L', 'N', 'N', 1.0, rect, c), Error);
  EXPECT_THROW(scalapack::pdpotrf(rect), Error);
  BlockCyclicMatrix uneven(grid, 10, 10, 4, 5);
  EXPECT_THROW(scalapack::pdpotrf(uneven), Error);
  EXPECT_THROW(scalapack::pdgemr2d(5, 5, a, 8, 0, c, 0, 0, grid), Error);
  EXPECT_THROW(BlockCyclicMatrix(grid, 10, 10, 0, 4), InputError);
}

}  // namespace
}  // namespace gplvm

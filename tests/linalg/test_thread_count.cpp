// The linear algebra on several threads per rank gives the one-thread result: gemm split by
// column or row blocks, the triangular solves split by right-hand sides, the rank-k update.
// With the packed engine every element is computed by the same operations in the same order
// whichever thread computes it, so the results must be bit-identical; Eigen's fallback (builds
// without AVX-512) blocks by shape, so there the bound is rounding.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <limits>

#include "gplvm/core/denormals.hpp"
#include "gplvm/linalg/gemm.hpp"
#include "gplvm/linalg/rank_update.hpp"
#include "gplvm/linalg/triangular_solve.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

using testing::kThreadCounts;
using testing::ScopedThreads;

// 0 where the split cannot change a bit (the packed engine), rounding otherwise.
template <typename Scalar>
double allowed_difference(GemmEngine engine) {
  return engine == GemmEngine::packed ? 0.0 : 64 * std::numeric_limits<Scalar>::epsilon();
}

template <typename Derived>
double relative_difference(const Eigen::MatrixBase<Derived>& a, const Eigen::MatrixBase<Derived>& b) {
  const double scale = static_cast<double>(b.template lpNorm<Eigen::Infinity>());
  return static_cast<double>((a - b).template lpNorm<Eigen::Infinity>()) / std::max(scale, 1e-300);
}

std::vector<GemmEngine> engines() {
  std::vector<GemmEngine> e{GemmEngine::eigen};
  if (packed_gemm_compiled()) e.push_back(GemmEngine::packed);
  return e;
}

// C = A B (+ C) through `engine` at `threads`, with A row-major or column-major and B transposed
// or not, as the encoder and the SAS terms use them.
template <typename Scalar>
MatrixT<Scalar> product(GemmEngine engine, int threads, Index m, Index n, Index k, bool a_row_major,
                        bool b_transposed, GemmUpdate update) {
  const ScopedThreads scoped(threads);
  std::srand(static_cast<unsigned>(m * 7 + n * 3 + k));
  const MatrixT<Scalar> a = MatrixT<Scalar>::Random(a_row_major ? k : m, a_row_major ? m : k);
  const MatrixT<Scalar> b = MatrixT<Scalar>::Random(b_transposed ? n : k, b_transposed ? k : n);
  MatrixT<Scalar> c = MatrixT<Scalar>::Random(m, n);
  const ConstMatrixView<Scalar> av = a_row_major ? view_of(a).transposed() : view_of(a);
  const ConstMatrixView<Scalar> bv = b_transposed ? view_of(b).transposed() : view_of(b);
  gemm_with(engine, av, bv, mutable_view_of(c), update);
  return c;
}

template <typename Scalar>
void check_gemm_shapes() {
  // Wide (split by columns), tall and narrow (split by rows), ragged edges of both, one share.
  const Index shapes[][3] = {{1024, 512, 784}, {784, 512, 1024}, {1000, 2, 256}, {200, 200, 824},
                             {37, 301, 64},    {515, 13, 200},   {40, 20, 30}};
  for (GemmEngine engine : engines())
    for (const auto& s : shapes)
      for (bool a_row_major : {false, true})
        for (GemmUpdate update : {GemmUpdate::overwrite, GemmUpdate::subtract}) {
          const bool b_transposed = !a_row_major;
          const MatrixT<Scalar> one =
              product<Scalar>(engine, 1, s[0], s[1], s[2], a_row_major, b_transposed, update);
          for (int t : kThreadCounts) {
            const MatrixT<Scalar> many =
                product<Scalar>(engine, t, s[0], s[1], s[2], a_row_major, b_transposed, update);
            EXPECT_LE(relative_difference(many, one), allowed_difference<Scalar>(engine))
                << "engine=" << static_cast<int>(engine) << " threads=" << t << " shape " << s[0] << "x"
                << s[1] << "x" << s[2] << " a_row_major=" << a_row_major;
          }
        }
}

TEST(ThreadCount, GemmResultDoesNotDependOnTheThreadCountDouble) {
  check_gemm_shapes<double>();
}

TEST(ThreadCount, GemmResultDoesNotDependOnTheThreadCountFloat) {
  check_gemm_shapes<float>();
}

Matrix factor(Index n) {
  std::srand(static_cast<unsigned>(n));
  const Matrix G = Matrix::Random(n, n);
  return Matrix((G * G.transpose() + static_cast<double>(n) * Matrix::Identity(n, n)).llt().matrixL());
}

TEST(ThreadCount, TriangularSolvesDoNotDependOnTheThreadCount) {
  const GemmEngine engine = packed_gemm_compiled() ? GemmEngine::packed : GemmEngine::eigen;
  // Panel-solved (<= 256) and recursively split orders; right-hand sides around panel multiples.
  for (Index n : {100, 200, 300})
    for (Index m : {36, 100, 823}) {
      const Matrix L = factor(n);
      std::srand(static_cast<unsigned>(m));
      const Matrix B = Matrix::Random(n, m);
      Matrix lower_one = B, upper_one = B;
      {
        const ScopedThreads one(1);
        solve_lower_triangular_in_place(L, lower_one);
        solve_lower_transposed_in_place(L, upper_one);
      }
      for (int t : kThreadCounts) {
        const ScopedThreads scoped(t);
        Matrix lower = B, upper = B;
        solve_lower_triangular_in_place(L, lower);
        solve_lower_transposed_in_place(L, upper);
        EXPECT_LE(relative_difference(lower, lower_one), allowed_difference<double>(engine))
            << "L^-1 B, n=" << n << " m=" << m << " threads=" << t;
        EXPECT_LE(relative_difference(upper, upper_one), allowed_difference<double>(engine))
            << "L^-T B, n=" << n << " m=" << m << " threads=" << t;
      }
    }
}

// An fp32 step flushes subnormals (core/denormals.hpp), and every thread of a product must do so
// as the caller does: products of 1e-20 and 1e-20 are 1e-40, subnormal in float, so under the
// scope every element is 0 at one thread; a thread left with IEEE gradual underflow would give
// k * 1e-40 instead. Shapes large and tall enough for each engine's threaded split.
TEST(ThreadCount, GemmWorkersFlushSubnormalsAsTheCallerDoes) {
  const Index m = 512, n = 128, k = 64;  // k * 1e-40 stays below float's smallest normal number
  const MatrixT<float> a = MatrixT<float>::Constant(m, k, 1e-20f), b = MatrixT<float>::Constant(k, n, 1e-20f);
  for (GemmEngine engine : engines())
    for (int t : kThreadCounts) {
      const ScopedThreads scoped(t);
      // First outside the scope: IEEE subnormals, and the engine's worker threads started (a
      // thread started under the scope would inherit the flushing and hide a missing hand-over).
      MatrixT<float> c = MatrixT<float>::Constant(m, n, -1.0f);
      gemm_with(engine, view_of(a), view_of(b), mutable_view_of(c), GemmUpdate::overwrite);
      EXPECT_GT(c.minCoeff(), 0.0f) << "engine=" << static_cast<int>(engine) << " threads=" << t;
      {
        const ScopedFlushDenormals flush;
        gemm_with(engine, view_of(a), view_of(b), mutable_view_of(c), GemmUpdate::overwrite);
      }
      EXPECT_EQ(c.cwiseAbs().maxCoeff(), 0.0f) << "engine=" << static_cast<int>(engine) << " threads=" << t;
    }
}

TEST(ThreadCount, RankUpdateDoesNotDependOnTheThreadCount) {
  const GemmEngine engine = packed_gemm_compiled() ? GemmEngine::packed : GemmEngine::eigen;
  for (Index n : {100, 200, 400}) {
    std::srand(static_cast<unsigned>(n));
    const Matrix a = Matrix::Random(n, 784);
    Matrix one = Matrix::Zero(n, n);
    {
      const ScopedThreads scoped(1);
      rank_update_lower(a, 0.5, one);
    }
    for (int t : kThreadCounts) {
      const ScopedThreads scoped(t);
      Matrix many = Matrix::Zero(n, n);
      rank_update_lower(a, 0.5, many);
      EXPECT_LE(relative_difference(many, one), allowed_difference<double>(engine))
          << "n=" << n << " threads=" << t;
    }
  }
}

}  // namespace
}  // namespace gplvm

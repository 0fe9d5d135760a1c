// gemm() against a plain triple loop accumulated in long double, over shapes that hit every edge of
// the packed engine's blocking (ragged MR x NR tiles, several k, m and n blocks), every operand
// layout the encoder uses (column-major, row-major, transposed, padded strides) and both updates.
#include "gplvm/linalg/gemm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace gplvm {
namespace {

// Storage for a rows x cols operand in a given layout, with a padded leading dimension so that
// strides differ from the shape (as for a block of a larger matrix).
template <typename Scalar>
struct Operand {
  std::vector<Scalar> storage;
  ConstMatrixView<Scalar> view;
};

template <typename Scalar>
Operand<Scalar> random_operand(Index rows, Index cols, bool row_major, std::mt19937& rng) {
  const Index pad = 3;
  const Index outer = row_major ? rows : cols, inner = (row_major ? cols : rows) + pad;
  Operand<Scalar> op;
  op.storage.resize(static_cast<std::size_t>(outer * inner + 1));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (Scalar& x : op.storage) x = static_cast<Scalar>(u(rng));
  op.view = row_major ? ConstMatrixView<Scalar>{op.storage.data(), rows, cols, inner, 1}
                      : ConstMatrixView<Scalar>{op.storage.data(), rows, cols, 1, inner};
  return op;
}

template <typename Scalar>
long double entry(const ConstMatrixView<Scalar>& v, Index i, Index j) {
  return v.data[i * v.row_stride + j * v.col_stride];
}

// max |C - C_ref| / (max |C_ref| + k) over the result; entries outside the rows x cols block of C
// (its padding) must be untouched.
template <typename Scalar>
void check_product(GemmEngine engine, Index m, Index n, Index k, bool a_row_major, bool b_row_major,
                   GemmUpdate update, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message() << "engine=" << static_cast<int>(engine) << " m=" << m << " n=" << n
                                    << " k=" << k << " a_row_major=" << a_row_major << " b_row_major="
                                    << b_row_major << " update=" << static_cast<int>(update));
  const Operand<Scalar> a = random_operand<Scalar>(m, k, a_row_major, rng);
  const Operand<Scalar> b = random_operand<Scalar>(k, n, b_row_major, rng);
  const Index ldc = m + 5;
  std::vector<Scalar> c(static_cast<std::size_t>(ldc * n + 1));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (Scalar& x : c) x = static_cast<Scalar>(u(rng));
  const std::vector<Scalar> c0 = c;

  gemm_with(engine, a.view, b.view, MutableMatrixView<Scalar>{c.data(), m, n, ldc}, update);

  long double worst = 0;
  for (Index j = 0; j < n; ++j) {
    for (Index i = 0; i < m; ++i) {
      long double product = 0;
      for (Index p = 0; p < k; ++p) product += entry(a.view, i, p) * entry(b.view, p, j);
      const long double before = c0[i + j * ldc];
      const long double expected = update == GemmUpdate::overwrite    ? product
                                   : update == GemmUpdate::accumulate ? before + product
                                                                      : before - product;
      worst = std::max(worst, std::fabs(expected - static_cast<long double>(c[i + j * ldc])));
    }
    for (Index i = m; i < ldc && i + j * ldc < static_cast<Index>(c.size()); ++i)
      ASSERT_EQ(c[i + j * ldc], c0[i + j * ldc])
          << "padding row " << i << " of column " << j << " was written";
  }
  // Each entry is a sum of k products of values in [-1, 1]: rounding error <= k * eps * (1 + o(1)).
  const long double tolerance = 4.0L * (k + 1) * std::numeric_limits<Scalar>::epsilon();
  EXPECT_LE(worst, tolerance);
}

template <typename Scalar>
class GemmTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GemmTest, Scalars);

TYPED_TEST(GemmTest, MatchesTripleLoopInEveryLayoutAndUpdate) {
  std::mt19937 rng(7);
  // Shapes around the blocking: MR = 32 (float) / 16 (double), NR = 12, kc = 384, mc = 6 MR,
  // nc = 2048, tiles cut at every remainder, k spanning two and three k blocks, n two n blocks.
  const Index shapes[][3] = {{1, 1, 1},      {31, 11, 5}, {32, 12, 384}, {33, 13, 385}, {97, 25, 17},
                             {200, 50, 800}, {17, 40, 3}, {193, 7, 100}, {64, 24, 769}, {35, 2061, 20}};
  // Both engines where the packed one is compiled: the Eigen one is what other builds run.
  std::vector<GemmEngine> engines{GemmEngine::eigen};
  if (packed_gemm_compiled()) engines.push_back(GemmEngine::packed);
  for (GemmEngine engine : engines)
    for (const auto& s : shapes)
      for (bool a_row_major : {false, true})
        for (bool b_row_major : {false, true})
          for (GemmUpdate update : {GemmUpdate::overwrite, GemmUpdate::accumulate, GemmUpdate::subtract})
            check_product<TypeParam>(engine, s[0], s[1], s[2], a_row_major, b_row_major, update, rng);
}

TYPED_TEST(GemmTest, TransposedViewsMultiplyTheTranspose) {
  // view_of(X).transposed() must read X^T: compare X^T * Y with a product of explicit transposes.
  std::mt19937 rng(11);
  using Mat = MatrixT<TypeParam>;
  const Mat x = Mat::Random(70, 45), y = Mat::Random(70, 30);
  Mat c(45, 30);
  gemm(view_of(x).transposed(), view_of(y), mutable_view_of(c), GemmUpdate::overwrite);
  const Mat expected =
      (x.transpose().template cast<double>() * y.template cast<double>()).template cast<TypeParam>();
  EXPECT_LE((c - expected).cwiseAbs().maxCoeff(), 100 * std::numeric_limits<TypeParam>::epsilon());

  const RowMatrixT<TypeParam> r = x;  // a row-major copy: its view has unit column stride
  Mat c2(45, 30);
  gemm(view_of(r).transposed(), view_of(y), mutable_view_of(c2), GemmUpdate::overwrite);
  EXPECT_EQ(c2, c);
}

TYPED_TEST(GemmTest, EmptyInnerDimensionZeroesOrKeeps) {
  using Mat = MatrixT<TypeParam>;
  const Mat a(4, 0), b(0, 3);
  Mat c = Mat::Constant(4, 3, 2);
  gemm(view_of(a), view_of(b), mutable_view_of(c), GemmUpdate::accumulate);
  EXPECT_EQ(c, Mat::Constant(4, 3, 2));
  gemm(view_of(a), view_of(b), mutable_view_of(c), GemmUpdate::subtract);
  EXPECT_EQ(c, Mat::Constant(4, 3, 2));
  gemm(view_of(a), view_of(b), mutable_view_of(c), GemmUpdate::overwrite);
  EXPECT_EQ(c, Mat::Zero(4, 3));
}

TYPED_TEST(GemmTest, MismatchedShapesAreRejectedWithTheShapes) {
  using Mat = MatrixT<TypeParam>;
  const Mat a(4, 5), b(6, 3);
  Mat c(4, 3);
  try {
    gemm(view_of(a), view_of(b), mutable_view_of(c), GemmUpdate::overwrite);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("4x5 by 6x3"), std::string::npos) << e.what();
  }
}

TEST(GemmViews, ViewsOfStridedEigenObjectsAreRejected) {
  MatrixT<double> storage = MatrixT<double>::Ones(6, 4);
  const Eigen::Map<const MatrixT<double>, 0, Eigen::InnerStride<2>> every_other_row(storage.data(), 3, 4);
  EXPECT_THROW(view_of(every_other_row), std::invalid_argument);
  EXPECT_NO_THROW(view_of(storage.block(1, 1, 3, 2)));
}

TEST(GemmEngine, PackedEngineRunsExactlyWhenBuiltNativeForAvx512) {
  // The tests are compiled with the library's flags: AVX-512 here means AVX-512 there.
  const std::string built = GPLVM_GEMM_ENGINE, name = gemm_engine_name();
#if defined(__AVX512F__)
  const bool packed_expected = built == "native";
#else
  const bool packed_expected = false;
#endif
  EXPECT_EQ(name == "packed AVX-512", packed_expected) << "built " << built << ", engine " << name;
  EXPECT_EQ(packed_gemm_compiled(), packed_expected);
  if (!packed_expected) {
    const MatrixT<double> a = MatrixT<double>::Ones(2, 2);
    MatrixT<double> c(2, 2);
    EXPECT_THROW(
        gemm_with(GemmEngine::packed, view_of(a), view_of(a), mutable_view_of(c), GemmUpdate::overwrite),
        std::logic_error);
  }
}

}  // namespace
}  // namespace gplvm

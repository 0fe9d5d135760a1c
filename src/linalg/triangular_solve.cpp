#include "gplvm/linalg/triangular_solve.hpp"

#include "gplvm/linalg/gemm.hpp"

namespace gplvm {

namespace {

// Below this many rows Eigen's solver is as fast as splitting further.
constexpr Index kDirectRows = 16;

MutableMatrixView<double> rows_of(MatrixRef& B, Index first, Index count) {
  return {B.data() + first, count, B.cols(), B.outerStride()};
}

}  // namespace

void solve_lower_triangular_in_place(const ConstMatrixRef& L, MatrixRef B) {
  const Index n = L.rows();
  if (n <= kDirectRows) {
    L.triangularView<Eigen::Lower>().solveInPlace(B);
    return;
  }
  const Index h = n / 2;
  solve_lower_triangular_in_place(L.topLeftCorner(h, h), B.topRows(h));
  gemm(view_of(L.bottomLeftCorner(n - h, h)), view_of(B.topRows(h)), rows_of(B, h, n - h),
       GemmUpdate::subtract);
  solve_lower_triangular_in_place(L.bottomRightCorner(n - h, n - h), B.bottomRows(n - h));
}

void solve_lower_transposed_in_place(const ConstMatrixRef& L, MatrixRef B) {
  const Index n = L.rows();
  if (n <= kDirectRows) {
    L.triangularView<Eigen::Lower>().transpose().solveInPlace(B);
    return;
  }
  const Index h = n / 2;
  solve_lower_transposed_in_place(L.bottomRightCorner(n - h, n - h), B.bottomRows(n - h));
  gemm(view_of(L.bottomLeftCorner(n - h, h)).transposed(), view_of(B.bottomRows(n - h)), rows_of(B, 0, h),
       GemmUpdate::subtract);
  solve_lower_transposed_in_place(L.topLeftCorner(h, h), B.topRows(h));
}

}  // namespace gplvm

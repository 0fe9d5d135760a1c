#include "gplvm/linalg/triangular_solve.hpp"

#include <algorithm>

#include "gplvm/linalg/gemm.hpp"

#if defined(GPLVM_PACKED_GEMM) && defined(__AVX512F__)
#include <immintrin.h>
#define GPLVM_RECURSIVE_SOLVES 1
#endif

namespace gplvm {

#if GPLVM_RECURSIVE_SOLVES

namespace {

// Below this many rows a block is solved directly (the leaf solver below).
constexpr Index kDirectRows = 16;

MutableMatrixView<double> rows_of(MatrixRef& B, Index first, Index count) {
  return {B.data() + first, count, B.cols(), B.outerStride()};
}

// A leaf of at most 16 rows, right-looking over columns of the (transposed) factor, eight
// right-hand sides at a time, each held as two 8-double registers: y_i -= (T_ik / T_kk) y_k for the
// rows i still to be solved, then x = y / diag(T). Eigen's solver handled a 16 x 784 block at
// ~20 GFLOP/s; this runs at several times that because every update is a vector FMA down a
// contiguous column of B.
struct Leaf {
  alignas(64) double coef[16 * 16] = {};  // column k: T_ik / T_kk for the rows i it updates, else 0
  alignas(64) double diag[16];
  Index rows = 0;
  bool ascending = true;  // L (forward substitution) or L^T (backward)

  Leaf(const ConstMatrixRef& L, bool transposed) : rows(L.rows()), ascending(!transposed) {
    for (Index k = 0; k < 16; ++k) diag[k] = k < rows ? L(k, k) : 1.0;
    for (Index k = 0; k < rows; ++k)
      for (Index i = 0; i < rows; ++i) {
        if (ascending && i > k) coef[16 * k + i] = L(i, k) / L(k, k);   // T = L: column k below the diagonal
        if (!ascending && i < k) coef[16 * k + i] = L(k, i) / L(k, k);  // T = L^T: column k is row k of L
      }
  }

  template <int C>
  void solve_columns(double* B, Index ld) const {
    const __mmask8 lo_mask = static_cast<__mmask8>((1u << std::min<Index>(rows, 8)) - 1);
    const __mmask8 hi_mask = static_cast<__mmask8>((1u << std::max<Index>(rows - 8, 0)) - 1);
    __m512d lo[C], hi[C];
    for (int c = 0; c < C; ++c) {
      lo[c] = _mm512_maskz_loadu_pd(lo_mask, B + c * ld);
      hi[c] = _mm512_maskz_loadu_pd(hi_mask, B + c * ld + 8);
    }
    for (Index s = 0; s < rows; ++s) {
      const Index k = ascending ? s : rows - 1 - s;
      // Which halves column k touches: rows below k (ascending) or above it (descending).
      const bool update_lo = ascending ? k < 7 : k > 0, update_hi = ascending ? rows > 8 : k > 8;
      const __m512d col_lo = _mm512_load_pd(coef + 16 * k), col_hi = _mm512_load_pd(coef + 16 * k + 8);
      const __m512i lane = _mm512_set1_epi64(k & 7);
      for (int c = 0; c < C; ++c) {
        const __m512d yk = _mm512_permutexvar_pd(lane, k < 8 ? lo[c] : hi[c]);
        if (update_lo) lo[c] = _mm512_fnmadd_pd(col_lo, yk, lo[c]);
        if (update_hi) hi[c] = _mm512_fnmadd_pd(col_hi, yk, hi[c]);
      }
    }
    const __m512d d_lo = _mm512_load_pd(diag), d_hi = _mm512_load_pd(diag + 8);
    for (int c = 0; c < C; ++c) {
      _mm512_mask_storeu_pd(B + c * ld, lo_mask, _mm512_div_pd(lo[c], d_lo));
      _mm512_mask_storeu_pd(B + c * ld + 8, hi_mask, _mm512_div_pd(hi[c], d_hi));
    }
  }

  void solve(MatrixRef& B) const {
    const Index m = B.cols(), ld = B.outerStride();
    Index j = 0;
    for (; j + 8 <= m; j += 8) solve_columns<8>(B.data() + j * ld, ld);
    for (; j < m; ++j) solve_columns<1>(B.data() + j * ld, ld);
  }
};

void solve_leaf(const ConstMatrixRef& L, MatrixRef& B, bool transposed) {
  Leaf(L, transposed).solve(B);
}

}  // namespace

void solve_lower_triangular_in_place(const ConstMatrixRef& L, MatrixRef B) {
  const Index n = L.rows();
  if (n <= kDirectRows) return solve_leaf(L, B, false);
  const Index h = n / 2;
  solve_lower_triangular_in_place(L.topLeftCorner(h, h), B.topRows(h));
  gemm(view_of(L.bottomLeftCorner(n - h, h)), view_of(B.topRows(h)), rows_of(B, h, n - h),
       GemmUpdate::subtract);
  solve_lower_triangular_in_place(L.bottomRightCorner(n - h, n - h), B.bottomRows(n - h));
}

void solve_lower_transposed_in_place(const ConstMatrixRef& L, MatrixRef B) {
  const Index n = L.rows();
  if (n <= kDirectRows) return solve_leaf(L, B, true);
  const Index h = n / 2;
  solve_lower_transposed_in_place(L.bottomRightCorner(n - h, n - h), B.bottomRows(n - h));
  gemm(view_of(L.bottomLeftCorner(n - h, h)).transposed(), view_of(B.bottomRows(n - h)), rows_of(B, 0, h),
       GemmUpdate::subtract);
  solve_lower_transposed_in_place(L.topLeftCorner(h, h), B.topRows(h));
}

#else

// Builds without the packed engine (GPLVM_GEMM=eigen or blas, or no AVX-512): the solver of the
// chosen engine, Eigen's TRSM or OpenBLAS's through EIGEN_USE_BLAS.
void solve_lower_triangular_in_place(const ConstMatrixRef& L, MatrixRef B) {
  L.triangularView<Eigen::Lower>().solveInPlace(B);
}

void solve_lower_transposed_in_place(const ConstMatrixRef& L, MatrixRef B) {
  L.triangularView<Eigen::Lower>().transpose().solveInPlace(B);
}

#endif

}  // namespace gplvm

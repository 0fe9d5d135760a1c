#include "gplvm/linalg/triangular_solve.hpp"

#include <algorithm>
#include <vector>

#include "gplvm/core/threads.hpp"
#include "gplvm/linalg/gemm.hpp"

#if defined(GPLVM_PACKED_GEMM) && defined(__AVX512F__)
#include <immintrin.h>
#define GPLVM_RECURSIVE_SOLVES 1
#endif

namespace gplvm {

#if GPLVM_RECURSIVE_SOLVES

namespace {

// Rows per strip: one strip is two 8-double registers per right-hand side.
constexpr Index kStripRows = 16;
// Right-hand sides solved together: 2 x 12 accumulators (the GEMM microkernel's first shape; not
// re-tuned when the GEMM moved to 3 x 8).
constexpr int kPanelColumns = 12;
// Up to this order the whole factor is packed (at most 256 x 256 / 2 doubles, 256 KiB, which
// stays in L2 while every panel of right-hand sides streams through it); above it the solve
// splits recursively and couples the halves with one large GEMM.
constexpr Index kPanelRows = 256;

// The diagonal block of one strip (at most 16 rows) as right-looking substitution coefficients:
// column k holds T_ik / T_kk for the rows i it updates, then x = y * (1 / diag(T)) (a multiply: a
// division per register was a third of a small strip's time; BLIS's TRSM kernels do the same).
// Every update is a vector FMA down the strip's rows, with y_k broadcast from its lane.
struct DiagonalBlock {
  alignas(64) double coef[kStripRows * kStripRows] = {};
  alignas(64) double inverse_diag[kStripRows];
  Index rows = 0;
  bool ascending = true;  // T = L (forward substitution) or T = L^T (backward)

  DiagonalBlock(const ConstMatrixRef& L, bool transposed) : rows(L.rows()), ascending(!transposed) {
    for (Index k = 0; k < kStripRows; ++k) inverse_diag[k] = k < rows ? 1.0 / L(k, k) : 1.0;
    for (Index k = 0; k < rows; ++k)
      for (Index i = 0; i < rows; ++i) {
        if (ascending && i > k)
          coef[kStripRows * k + i] = L(i, k) / L(k, k);  // T = L: column k below the diagonal
        if (!ascending && i < k) coef[kStripRows * k + i] = L(k, i) / L(k, k);  // T = L^T: row k of L
      }
  }

  template <int C>
  void solve(__m512d (&lo)[C], __m512d (&hi)[C]) const {
    for (Index s = 0; s < rows; ++s) {
      const Index k = ascending ? s : rows - 1 - s;
      // Which halves column k touches: rows below k (ascending) or above it (descending).
      const bool update_lo = ascending ? k < 7 : k > 0, update_hi = ascending ? rows > 8 : k > 8;
      const __m512d col_lo = _mm512_load_pd(coef + kStripRows * k),
                    col_hi = _mm512_load_pd(coef + kStripRows * k + 8);
      const __m512i lane = _mm512_set1_epi64(k & 7);
      for (int c = 0; c < C; ++c) {
        const __m512d yk = _mm512_permutexvar_pd(lane, k < 8 ? lo[c] : hi[c]);
        if (update_lo) lo[c] = _mm512_fnmadd_pd(col_lo, yk, lo[c]);
        if (update_hi) hi[c] = _mm512_fnmadd_pd(col_hi, yk, hi[c]);
      }
    }
    const __m512d d_lo = _mm512_load_pd(inverse_diag), d_hi = _mm512_load_pd(inverse_diag + 8);
    for (int c = 0; c < C; ++c) {
      lo[c] = _mm512_mul_pd(lo[c], d_lo);
      hi[c] = _mm512_mul_pd(hi[c], d_hi);
    }
  }
};

// T X = B for T = L or L^T of order n <= kPanelRows, fused like BLIS's gemm-trsm: strip by strip
// (16 rows; top-down for L, bottom-up for L^T), the strip's right-hand sides are loaded into
// registers, the coupling to the rows already solved is subtracted there (a GEMM with k up to n,
// read from T packed by strips), the diagonal block is solved by substitution in the same
// registers, and the result is stored once. No intermediate block of B goes back to memory, which
// is what the recursive split cost on small blocks (a GEMM call, with its packing, per split).
// The same operations as a blocked TRSM: no inverse is formed.
class PanelSolver {
 public:
  PanelSolver(const ConstMatrixRef& L, bool transposed)
      : n_(L.rows()), strips_((n_ + kStripRows - 1) / kStripRows), ascending_(!transposed) {
    offsets_.resize(static_cast<std::size_t>(strips_) + 1, 0);
    for (Index s = 0; s < strips_; ++s) offsets_[s + 1] = offsets_[s] + kStripRows * coupling_count(s);
    packed_.assign(static_cast<std::size_t>(offsets_[strips_]), 0.0);
    blocks_.reserve(static_cast<std::size_t>(strips_));
    for (Index s = 0; s < strips_; ++s) {
      const Index r0 = kStripRows * s, rows = strip_rows(s), k0 = coupling_begin(s);
      double* dst = packed_.data() + offsets_[s];
      for (Index k = k0; k < k0 + coupling_count(s); ++k, dst += kStripRows)
        for (Index i = 0; i < rows; ++i) dst[i] = ascending_ ? L(r0 + i, k) : L(k, r0 + i);
      blocks_.emplace_back(L.block(r0, r0, rows, rows), transposed);
    }
  }

  void solve(double* B, Index ld, Index num_rhs) const {
    Index j = 0;
    for (; j + kPanelColumns <= num_rhs; j += kPanelColumns) solve_panel<kPanelColumns>(B + j * ld, ld);
    dispatch_tail(num_rhs - j, B + j * ld, ld);
  }

 private:
  Index strip_rows(Index s) const { return std::min(kStripRows, n_ - kStripRows * s); }
  // The solved rows strip s is coupled to: those above it (L) or below it (L^T).
  Index coupling_begin(Index s) const { return ascending_ ? 0 : kStripRows * s + strip_rows(s); }
  Index coupling_count(Index s) const { return ascending_ ? kStripRows * s : n_ - coupling_begin(s); }

  template <int C = 1>
  void dispatch_tail(Index columns, double* B, Index ld) const {
    if constexpr (C < kPanelColumns) {
      if (columns == C) return solve_panel<C>(B, ld);
      dispatch_tail<C + 1>(columns, B, ld);
    }
  }

  template <int C>
  void solve_panel(double* B, Index ld) const {
    // The panel's solved rows, row-major (k, c), so one pointer feeds every broadcast.
    alignas(64) double solved[kPanelRows * C];
    for (Index step = 0; step < strips_; ++step) {
      const Index s = ascending_ ? step : strips_ - 1 - step;
      const Index r0 = kStripRows * s, rows = strip_rows(s);
      const __mmask8 lo_mask = static_cast<__mmask8>((1u << std::min<Index>(rows, 8)) - 1);
      const __mmask8 hi_mask = static_cast<__mmask8>((1u << std::max<Index>(rows - 8, 0)) - 1);
      __m512d lo[C], hi[C];
      for (int c = 0; c < C; ++c) {
        lo[c] = _mm512_maskz_loadu_pd(lo_mask, B + c * ld + r0);
        hi[c] = _mm512_maskz_loadu_pd(hi_mask, B + c * ld + r0 + 8);
      }
      const double* t = packed_.data() + offsets_[s];
      const double* x = solved + coupling_begin(s) * C;
      // Unrolled twice, as the GEMM microkernel's k loop (fewer loop-control uops per FMA).
#pragma GCC unroll 2
      for (Index k = 0, count = coupling_count(s); k < count; ++k, t += kStripRows, x += C) {
        const __m512d t_lo = _mm512_loadu_pd(t), t_hi = _mm512_loadu_pd(t + 8);
        for (int c = 0; c < C; ++c) {
          const __m512d xk = _mm512_set1_pd(x[c]);
          lo[c] = _mm512_fnmadd_pd(t_lo, xk, lo[c]);
          hi[c] = _mm512_fnmadd_pd(t_hi, xk, hi[c]);
        }
      }
      blocks_[s].solve<C>(lo, hi);
      alignas(64) double tile[C][kStripRows];
      for (int c = 0; c < C; ++c) {
        _mm512_mask_storeu_pd(B + c * ld + r0, lo_mask, lo[c]);
        _mm512_mask_storeu_pd(B + c * ld + r0 + 8, hi_mask, hi[c]);
        _mm512_store_pd(tile[c], lo[c]);
        _mm512_store_pd(tile[c] + 8, hi[c]);
      }
      for (Index i = 0; i < rows; ++i)
        for (int c = 0; c < C; ++c) solved[(r0 + i) * C + c] = tile[c][i];
    }
  }

  Index n_, strips_;
  bool ascending_;
  std::vector<Index> offsets_;  // strip s's coupling columns start at packed_[offsets_[s]]
  std::vector<double> packed_;  // per strip, 16 values of T per coupling column, zero-padded
  std::vector<DiagonalBlock> blocks_;
};

MutableMatrixView<double> rows_of(MatrixRef& B, Index first, Index count) {
  return {B.data() + first, count, B.cols(), B.outerStride()};
}

void solve_lower(const ConstMatrixRef& L, MatrixRef B) {
  const Index n = L.rows();
  if (n <= kPanelRows) return PanelSolver(L, false).solve(B.data(), B.outerStride(), B.cols());
  const Index h = n / 2;
  solve_lower(L.topLeftCorner(h, h), B.topRows(h));
  gemm(view_of(L.bottomLeftCorner(n - h, h)), view_of(B.topRows(h)), rows_of(B, h, n - h),
       GemmUpdate::subtract);
  solve_lower(L.bottomRightCorner(n - h, n - h), B.bottomRows(n - h));
}

void solve_lower_transposed(const ConstMatrixRef& L, MatrixRef B) {
  const Index n = L.rows();
  if (n <= kPanelRows) return PanelSolver(L, true).solve(B.data(), B.outerStride(), B.cols());
  const Index h = n / 2;
  solve_lower_transposed(L.bottomRightCorner(n - h, n - h), B.bottomRows(n - h));
  gemm(view_of(L.bottomLeftCorner(n - h, h)).transposed(), view_of(B.bottomRows(n - h)), rows_of(B, 0, h),
       GemmUpdate::subtract);
  solve_lower_transposed(L.topLeftCorner(h, h), B.topRows(h));
}

}  // namespace

#else

namespace {

// Builds without the packed engine (GPLVM_GEMM=eigen or blas, or no AVX-512): the solver of the
// chosen engine, Eigen's TRSM or OpenBLAS's through EIGEN_USE_BLAS. Right-hand sides are shared
// among threads in the same units as the packed solver's panels.
constexpr int kPanelColumns = 12;

void solve_lower(const ConstMatrixRef& L, MatrixRef B) {
  L.triangularView<Eigen::Lower>().solveInPlace(B);
}

void solve_lower_transposed(const ConstMatrixRef& L, MatrixRef B) {
  L.triangularView<Eigen::Lower>().transpose().solveInPlace(B);
}

}  // namespace

#endif

namespace {

// Solves below this many FLOPs (n^2 per right-hand side) run on the calling thread.
constexpr double kMinThreadedFlops = 2e6;

// The right-hand sides are independent: the rank's threads take whole panels of them each, and
// each column is solved by the same operations as on one thread.
template <typename Solve>
void solve_on_threads(const ConstMatrixRef& L, MatrixRef B, Solve solve) {
  const double flops = static_cast<double>(L.rows()) * static_cast<double>(L.rows()) * B.cols();
  if (flops < kMinThreadedFlops) return solve(L, B);
  for_each_thread_share(B.cols(), kPanelColumns,
                        [&](Index j0, Index j1) { solve(L, B.middleCols(j0, j1 - j0)); });
}

}  // namespace

void solve_lower_triangular_in_place(const ConstMatrixRef& L, MatrixRef B) {
  solve_on_threads(L, B, solve_lower);
}

void solve_lower_transposed_in_place(const ConstMatrixRef& L, MatrixRef B) {
  solve_on_threads(L, B, solve_lower_transposed);
}

}  // namespace gplvm

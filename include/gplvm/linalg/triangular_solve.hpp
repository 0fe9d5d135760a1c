#pragma once
// Triangular solves with a lower-triangular factor L, in place: B <- L^{-1} B or B <- L^{-T} B.
//
// Recursive: split L = [L11 0; L21 L22] at the middle, solve the two halves recursively and couple
// them with one GEMM (B2 -= L21 X1, or B1 -= L21^T X2) through gplvm::gemm, so most of the
// A^2 n FLOPs run at the packed engine's GEMM rate; blocks of at most 16 rows go to Eigen's
// solver. Same operations as a blocked TRSM (no inverse is formed), so the same backward error.
// Eigen's own TRSM ran at 26 / 41 / 53 GFLOP/s for A = 100 / 200 / 400 against DGEMM's 75-80 on
// the development machine (docs/benchmarks.md).
#include "gplvm/core/types.hpp"

namespace gplvm {

// B <- L^{-1} B; L is n x n, only its lower triangle is read; B is n x m.
void solve_lower_triangular_in_place(const ConstMatrixRef& L, MatrixRef B);

// B <- L^{-T} B.
void solve_lower_transposed_in_place(const ConstMatrixRef& L, MatrixRef B);

}  // namespace gplvm

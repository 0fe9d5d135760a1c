#pragma once
// Triangular solves with a lower-triangular factor L, in place: B <- L^{-1} B or B <- L^{-T} B.
//
// With the packed GEMM engine (GPLVM_GEMM=native on an AVX-512 build, include/gplvm/linalg/gemm.hpp)
// the solve is recursive: split L = [L11 0; L21 L22] at the middle, solve the halves recursively
// and couple them with one GEMM (B2 -= L21 X1, or B1 -= L21^T X2) through gplvm::gemm, so most of
// the A^2 n FLOPs run at the packed engine's rate; blocks of at most 16 rows go to an AVX-512 leaf
// solver. The same operations as a blocked TRSM (no inverse is formed), so the same backward
// error. On the development machine this runs at 1.4-1.9x Eigen's TRSM for A = 100-400 against
// 784 right-hand sides (bench/kernels_bench.cpp, docs/benchmarks.md). Other builds call the
// engine's own solver (Eigen's, or OpenBLAS's through EIGEN_USE_BLAS).
#include "gplvm/core/types.hpp"

namespace gplvm {

// B <- L^{-1} B; L is n x n, only its lower triangle is read; B is n x m.
void solve_lower_triangular_in_place(const ConstMatrixRef& L, MatrixRef B);

// B <- L^{-T} B.
void solve_lower_transposed_in_place(const ConstMatrixRef& L, MatrixRef B);

}  // namespace gplvm

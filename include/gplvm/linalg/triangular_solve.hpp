#pragma once
// Triangular solves with a lower-triangular factor L, in place: B <- L^{-1} B or B <- L^{-T} B.
//
// With the packed GEMM engine (GPLVM_GEMM=native on an AVX-512 build, include/gplvm/linalg/gemm.hpp)
// a factor of order <= 256 is solved by a fused panel kernel, BLIS's gemm-trsm scheme: the factor
// packed in 16-row strips, twelve right-hand sides at a time held in registers, each strip's
// coupling to the rows already solved subtracted there (an AVX-512 GEMM microkernel) and its
// 16 x 16 diagonal block solved by substitution in the same registers. Larger factors split at the
// middle, L = [L11 0; L21 L22], recursively, the halves coupled by one gplvm::gemm. The same
// operations as a blocked TRSM (no inverse is formed; the diagonal is applied as its reciprocal,
// as BLIS does), so the same backward error. On the development machine this runs at 1.6-2.1x
// the faster of Eigen's and OpenBLAS's TRSM for A = 100-400 against 784 right-hand sides
// (bench/kernels_bench.cpp, docs/benchmarks.md). Other builds call the engine's own solver (Eigen's, or
// OpenBLAS's through EIGEN_USE_BLAS).
#include "gplvm/core/types.hpp"

namespace gplvm {

// B <- L^{-1} B; L is n x n, only its lower triangle is read; B is n x m.
void solve_lower_triangular_in_place(const ConstMatrixRef& L, MatrixRef B);

// B <- L^{-T} B.
void solve_lower_transposed_in_place(const ConstMatrixRef& L, MatrixRef B);

}  // namespace gplvm

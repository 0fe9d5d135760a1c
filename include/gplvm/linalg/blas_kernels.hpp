#pragma once
// Which OpenBLAS kernels this process runs, and the correction for a known misdetection.
//
// Debian 12's OpenBLAS (0.3.21) does not know AMD Zen 4/5 and falls back to its AVX2 "Haswell"
// (or "Zen") kernels on CPUs with full AVX-512. On the Zen 5 development machine that halves every
// GEMM, TRSM and Cholesky (DGEMM 57 -> 93 GFLOP/s, SGEMM 105 -> 180 GFLOP/s with the SkylakeX
// kernels; docs/benchmarks.md). OpenBLAS picks its kernels once, when the library is loaded, from
// the environment variable OPENBLAS_CORETYPE, so the only way to correct it from inside the
// program is to set the variable and re-execute the same binary with the same arguments before
// anything else runs (before MPI_Init: the rank keeps its pid and its launcher environment).
//
// Setting OPENBLAS_CORETYPE yourself (to any value) disables the correction.
#include <string>

namespace gplvm {

// OpenBLAS's name for the kernels in use ("Haswell", "SkylakeX", "Zen", ...).
std::string blas_core_name();

// True if the CPU executes AVX-512 F/CD/BW/DQ/VL (what OpenBLAS's SkylakeX kernels need).
bool cpu_has_avx512();

// If OpenBLAS chose AVX2 kernels on an AVX-512 CPU and OPENBLAS_CORETYPE is not set: sets
// OPENBLAS_CORETYPE=SKYLAKEX and re-executes /proc/self/exe with argv (does not return). Also
// records that it did so, for blas_kernel_note(). Otherwise returns and changes nothing.
void use_avx512_blas_kernels_if_misdetected(char** argv);

// One line for logs and run files: kernels in use and whether the correction was applied.
std::string blas_kernel_note();

}  // namespace gplvm

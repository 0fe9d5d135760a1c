#pragma once
// Which OpenBLAS kernels this process runs, for logs and benchmark records.
//
// OpenBLAS picks its kernels once, when it is loaded: from the CPU, or from the environment
// variable OPENBLAS_CORETYPE when that is set. The choice moves every LAPACK/ScaLAPACK call (and,
// with GPLVM_GEMM=blas, every product) by up to 2x: on the AVX-512 development machine, whose
// environment sets OPENBLAS_CORETYPE=Haswell, DGEMM runs at 57 GFLOP/s against 77-93 with the
// auto-detected Cooperlake kernels (docs/benchmarks.md). So results name the kernels they ran on.
#include <string>

namespace gplvm {

// OpenBLAS's name for the kernels in use ("Haswell", "SkylakeX", "Cooperlake", "Zen", ...).
std::string blas_core_name();

// One line: the kernels in use, OPENBLAS_CORETYPE when it forced them, and the advice below.
std::string blas_kernel_note();

// The OPENBLAS_CORETYPE that gives kernels as wide as the CPU's vectors ("SkylakeX" on an AVX-512
// CPU, "Haswell" on an AVX2 one) when auto-detection picked narrower `core` kernels: OpenBLAS
// 0.3.21 does not know newer CPUs and falls back, e.g. to Prescott's SSE3 kernels on an Intel Xeon
// of 2023 (DGEMM 15 against 72 GFLOP/s: docs/benchmarks.md, "The device machine"). Empty when the
// kernels fit, or when OPENBLAS_CORETYPE chose them (the user's choice stands).
std::string blas_recommended_coretype(const std::string& core, bool forced, bool cpu_has_avx512,
                                      bool cpu_has_avx2);

// That recommendation as a warning naming the fix; empty when there is none.
std::string blas_kernel_advice(const std::string& core, bool forced, bool cpu_has_avx512, bool cpu_has_avx2);

// The OPENBLAS_CORETYPE this machine should run with: the variable's value when it is set, else
// the recommendation for this CPU and the kernels OpenBLAS picked, else empty. What `gplvm
// --openblas-coretype` prints, for scripts that start other BLAS users (scripts/openblas_coretype.sh).
std::string blas_coretype_to_use();

// OpenBLAS's own thread count (its pthread pool, separate from the rank's OpenMP threads).
void set_blas_threads(int threads);

}  // namespace gplvm

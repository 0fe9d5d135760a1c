#include "gplvm/linalg/blas_kernels.hpp"

#include <cstdlib>
#include <set>

extern "C" char* openblas_get_corename(void);
extern "C" void openblas_set_num_threads(int);

namespace gplvm {

std::string blas_core_name() {
  const char* name = openblas_get_corename();
  return name ? name : "unknown";
}

std::string blas_kernel_advice(const std::string& core, bool forced, bool cpu_has_avx512, bool cpu_has_avx2) {
  // OpenBLAS's names (corename) of the kernel sets with 512-bit and with at least 256-bit FMA.
  static const std::set<std::string> avx512 = {"SkylakeX", "Cooperlake", "SapphireRapids"};
  static const std::set<std::string> avx2 = {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"};
  if (forced) return "";
  if (cpu_has_avx512 && !avx512.count(core))
    return "warning: OpenBLAS did not recognise this AVX-512 CPU and runs its " + core +
           " kernels; set OPENBLAS_CORETYPE=SkylakeX (or Cooperlake) for LAPACK/ScaLAPACK at full speed";
  if (cpu_has_avx2 && !avx2.count(core))
    return "warning: OpenBLAS did not recognise this AVX2 CPU and runs its " + core +
           " kernels; set OPENBLAS_CORETYPE=Haswell for LAPACK/ScaLAPACK at full speed";
  return "";
}

std::string blas_kernel_note() {
  const std::string core = blas_core_name();
  std::string note = "OpenBLAS kernels: " + core;
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  if (forced)
    note += std::string(" (set by OPENBLAS_CORETYPE=") + forced + ")";
  else
    note += " (auto-detected)";
#if defined(__x86_64__)
  const std::string advice = blas_kernel_advice(core, forced != nullptr, __builtin_cpu_supports("avx512f"),
                                                __builtin_cpu_supports("avx2"));
  if (!advice.empty()) note += "; " + advice;
#endif
  return note;
}

void set_blas_threads(int threads) {
  openblas_set_num_threads(threads);
}

}  // namespace gplvm

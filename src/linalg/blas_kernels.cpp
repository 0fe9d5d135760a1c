#include "gplvm/linalg/blas_kernels.hpp"

#include <cstdlib>
#include <set>

extern "C" char* openblas_get_corename(void);
extern "C" void openblas_set_num_threads(int);

namespace gplvm {
namespace {

constexpr const char* kAvx512Coretype = "SkylakeX";
constexpr const char* kAvx2Coretype = "Haswell";

// OPENBLAS_CORETYPE, or null when unset.
const char* forced_coretype() {
  return std::getenv("OPENBLAS_CORETYPE");
}

// The vector extensions of this CPU that OpenBLAS has kernels for (none off x86-64: there its
// choice is not second-guessed).
struct CpuVectors {
  bool avx512 = false, avx2 = false;
};
CpuVectors cpu_vectors() {
#if defined(__x86_64__)
  return {__builtin_cpu_supports("avx512f") != 0, __builtin_cpu_supports("avx2") != 0};
#else
  return {};
#endif
}

}  // namespace

std::string blas_core_name() {
  const char* name = openblas_get_corename();
  return name ? name : "unknown";
}

std::string blas_recommended_coretype(const std::string& core, bool forced, bool cpu_has_avx512,
                                      bool cpu_has_avx2) {
  // OpenBLAS's names (corename) of the kernel sets with 512-bit and with at least 256-bit FMA.
  static const std::set<std::string> avx512 = {"SkylakeX", "Cooperlake", "SapphireRapids"};
  static const std::set<std::string> avx2 = {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"};
  if (forced) return "";
  if (cpu_has_avx512 && !avx512.count(core)) return kAvx512Coretype;
  if (cpu_has_avx2 && !avx2.count(core)) return kAvx2Coretype;
  return "";
}

std::string blas_kernel_advice(const std::string& core, bool forced, bool cpu_has_avx512, bool cpu_has_avx2) {
  const std::string coretype = blas_recommended_coretype(core, forced, cpu_has_avx512, cpu_has_avx2);
  if (coretype.empty()) return "";
  const bool wide = coretype == kAvx512Coretype;
  return std::string("warning: OpenBLAS did not recognise this ") + (wide ? "AVX-512" : "AVX2") +
         " CPU and runs its " + core + " kernels; set OPENBLAS_CORETYPE=" + coretype +
         (wide ? " (or Cooperlake)" : "") + " for LAPACK/ScaLAPACK at full speed";
}

std::string blas_coretype_to_use() {
  if (const char* forced = forced_coretype()) return forced;
  const CpuVectors cpu = cpu_vectors();
  return blas_recommended_coretype(blas_core_name(), false, cpu.avx512, cpu.avx2);
}

std::string blas_kernel_note() {
  const std::string core = blas_core_name();
  const char* forced = forced_coretype();
  std::string note = "OpenBLAS kernels: " + core;
  note += forced ? std::string(" (set by OPENBLAS_CORETYPE=") + forced + ")" : " (auto-detected)";
  const CpuVectors cpu = cpu_vectors();
  const std::string advice = blas_kernel_advice(core, forced != nullptr, cpu.avx512, cpu.avx2);
  if (!advice.empty()) note += "; " + advice;
  return note;
}

void set_blas_threads(int threads) {
  openblas_set_num_threads(threads);
}

}  // namespace gplvm

#include "gplvm/linalg/blas_kernels.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" char* openblas_get_corename(void);

namespace gplvm {
namespace {

// Set in the environment of the re-executed process, so that it knows (and never loops).
constexpr const char* kMarker = "GPLVM_BLAS_CORETYPE_CORRECTED";

bool is_avx2_only_core(const std::string& core) {
  return core == "Haswell" || core == "Zen" || core == "SandyBridge";
}

}  // namespace

std::string blas_core_name() {
  const char* name = openblas_get_corename();
  return name ? name : "unknown";
}

bool cpu_has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
}

void use_avx512_blas_kernels_if_misdetected(char** argv) {
  if (std::getenv("OPENBLAS_CORETYPE") || std::getenv(kMarker)) return;
  if (!cpu_has_avx512() || !is_avx2_only_core(blas_core_name())) return;
  setenv("OPENBLAS_CORETYPE", "SKYLAKEX", 1);
  setenv(kMarker, blas_core_name().c_str(), 1);
  execv("/proc/self/exe", argv);
  // exec failed (no /proc?): carry on with the kernels we have; the note says so.
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(kMarker);
  std::fprintf(stderr, "gplvm: warning: could not re-execute with OPENBLAS_CORETYPE=SKYLAKEX (%s); "
                       "running OpenBLAS's %s kernels on an AVX-512 CPU\n",
               std::strerror(errno), blas_core_name().c_str());
}

std::string blas_kernel_note() {
  const char* corrected = std::getenv(kMarker);
  std::string note = "OpenBLAS kernels: " + blas_core_name();
  if (corrected) note += std::string(" (auto-detected ") + corrected + ", corrected for this AVX-512 CPU)";
  return note;
}

}  // namespace gplvm

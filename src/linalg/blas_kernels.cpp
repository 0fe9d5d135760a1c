#include "gplvm/linalg/blas_kernels.hpp"

#include <cstdlib>

extern "C" char* openblas_get_corename(void);

namespace gplvm {

std::string blas_core_name() {
  const char* name = openblas_get_corename();
  return name ? name : "unknown";
}

std::string blas_kernel_note() {
  std::string note = "OpenBLAS kernels: " + blas_core_name();
  if (const char* forced = std::getenv("OPENBLAS_CORETYPE"))
    note += std::string(" (set by OPENBLAS_CORETYPE=") + forced + ")";
  else
    note += " (auto-detected)";
  return note;
}

}  // namespace gplvm

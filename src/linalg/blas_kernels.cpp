#include "gplvm/linalg/blas_kernels.hpp"

#include <cstdlib>

extern "C" char* openblas_get_corename(void);
extern "C" void openblas_set_num_threads(int);

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

void set_blas_threads(int threads) {
  openblas_set_num_threads(threads);
}

}  // namespace gplvm

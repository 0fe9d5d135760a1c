#include "gplvm/core/memory_reuse.hpp"

#include <cstdlib>  // defines __GLIBC__ (via <features.h>), which the test below needs

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gplvm {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 512 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
#endif
}

}  // namespace gplvm

#include "gplvm/core/resource_usage.hpp"

#include <sys/resource.h>

namespace gplvm {

double peak_resident_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // Linux reports KiB
}

}  // namespace gplvm

#include "gplvm/core/format_number.hpp"

#include <cstdio>

namespace gplvm {

std::string format_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", x);
  return text;
}

}  // namespace gplvm

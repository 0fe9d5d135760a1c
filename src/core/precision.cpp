#include "gplvm/core/precision.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {

Precision parse_precision(const std::string& name) {
  if (name == "float64") return Precision::float64;
  if (name == "float32") return Precision::float32;
  throw InputError("unknown precision (expected 'float64' or 'float32')", {"", "model.precision", name});
}

std::string to_string(Precision precision) {
  return precision == Precision::float64 ? "float64" : "float32";
}

}  // namespace gplvm

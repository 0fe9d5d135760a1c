#pragma once
// A number as messages and printed keys show it: six significant digits, no trailing zeros
// ("%.6g": 0.5, 9.38655, 1e-05).
#include <string>

namespace gplvm {

std::string format_number(double x);

}  // namespace gplvm

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

std::string with_context(const std::string& what, const ErrorContext& c) {
  std::string parts;
  auto add = [&parts](const char* label, const std::string& v) {
    if (v.empty()) return;
    parts += parts.empty() ? " (" : ", ";
    parts += label;
    parts += " '" + v + "'";
  };
  add("file", c.file);
  add("key", c.key);
  add("value", c.value);
  return parts.empty() ? what : what + parts + ")";
}

}  // namespace

Error::Error(const std::string& what, ErrorContext context)
    : std::runtime_error(with_context(what, context)), reason_(what), context_(std::move(context)) {}

void require(bool condition, const char* what, ErrorContext context) {
  if (!condition) throw InputError(what, std::move(context));
}

void require(bool condition, const std::string& what, ErrorContext context) {
  if (!condition) throw InputError(what, std::move(context));
}

}  // namespace gplvm

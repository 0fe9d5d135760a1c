#include "gplvm/io/output_guard.hpp"

#include <filesystem>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

namespace fs = std::filesystem;

fs::path resolved(const std::string& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal() : canonical;
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  if (resolved(a) == resolved(b)) return true;
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);  // hard links
}

void require_output_not_input(const NamedPath& output, const std::vector<NamedPath>& inputs) {
  for (const NamedPath& input : inputs) {
    if (input.path.empty() || !same_file(output.path, input.path)) continue;
    throw InputError("output " + output.key + " '" + output.path + "' is the input " + input.key + " '" +
                         input.path + "': refusing to overwrite an input",
                     {output.path, output.key, input.path});
  }
}

}  // namespace gplvm

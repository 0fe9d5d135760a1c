#include "gplvm/io/created_directories.hpp"

#include <filesystem>

namespace gplvm {

namespace fs = std::filesystem;

std::vector<std::string> create_directories_listed(const std::string& dir, std::error_code& ec) {
  ec.clear();
  std::vector<std::string> missing;  // deepest first while climbing
  std::error_code ignored;
  for (fs::path p = fs::absolute(dir, ignored).lexically_normal(); !p.empty() && !fs::exists(p, ignored);
       p = p.parent_path()) {
    // "a/b/" normalises to "a/b/", whose parent_path is "a/b": skip the empty last component.
    if (!p.has_filename()) continue;
    missing.insert(missing.begin(), p.string());
    if (p == p.parent_path()) break;
  }
  fs::create_directories(dir, ec);
  if (!ec) return missing;
  remove_empty_directories(missing);  // a failure part way may have made the outer ones
  return {};
}

void remove_empty_directories(const std::vector<std::string>& made) {
  for (auto it = made.rbegin(); it != made.rend(); ++it) {
    std::error_code ec;
    if (fs::is_empty(*it, ec)) fs::remove(*it, ec);
  }
}

}  // namespace gplvm

#include "gplvm/run/json_summary.hpp"

#include "gplvm/core/version.hpp"

namespace gplvm {

JsonWriter json_summary(const std::string& command) {
  JsonWriter w(0);
  w.begin_object()
      .key("command")
      .value(command)
      .key("version")
      .value(version())
      .key("git_commit")
      .value(git_commit());
  return w;
}

}  // namespace gplvm

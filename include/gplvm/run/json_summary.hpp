#pragma once
// The start of every command's --json summary: an open object naming the command and the build
// that produced it ({"command": ..., "version": ..., "git_commit": ...}); the command adds its own
// members and closes it.
#include <string>

#include "gplvm/core/json_writer.hpp"

namespace gplvm {

JsonWriter json_summary(const std::string& command);

}  // namespace gplvm

#include "gplvm/core/version.hpp"

namespace gplvm {

extern const char* const kGitCommit;  // generated at build time (cmake/GitCommit.cmake)

const char* version() {
  return GPLVM_VERSION;
}

const char* git_commit() {
  return kGitCommit;
}

std::string version_text() {
  return std::string("gplvm-hpc ") + version() + " (git " + git_commit() + ")";
}

}  // namespace gplvm

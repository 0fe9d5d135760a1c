#pragma once
// What build this is: the version from CMake's project() and the git commit it was built from
// (embedded at build time; "unknown" outside a git checkout, "-dirty" with uncommitted changes).
#include <string>

namespace gplvm {

const char* version();       // "0.1.0"
const char* git_commit();    // "1a2b3c4d5e6f", "1a2b3c4d5e6f-dirty" or "unknown"
std::string version_text();  // "gplvm-hpc 0.1.0 (git 1a2b3c4d5e6f)"

}  // namespace gplvm

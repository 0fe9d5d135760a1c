#pragma once
// Output folders made on demand, as `mkdir -p` makes them, and remembered: a command that fails
// removes the folders it made (when still empty) and leaves the file system as it found it.
#include <string>
#include <system_error>
#include <vector>

namespace gplvm {

// Creates `dir` and the missing folders above it. Returns those it made, outermost first (none
// when `dir` exists). On failure sets `ec`, removes again what it made and returns none.
std::vector<std::string> create_directories_listed(const std::string& dir, std::error_code& ec);

// Removes the folders of `made` (as create_directories_listed lists them) that are empty,
// deepest first, so that a folder emptied by removing the one below it goes too.
void remove_empty_directories(const std::vector<std::string>& made);

}  // namespace gplvm

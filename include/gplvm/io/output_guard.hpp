#pragma once
// Outputs never replace inputs: a command refuses an output path that is one of the files it
// reads, however it is spelled (relative or absolute, through symbolic links or a hard link),
// before it reads or writes anything.
#include <string>
#include <vector>

namespace gplvm {

// A file a command reads or writes, with the option or config key that named it.
struct NamedPath {
  std::string path;
  std::string key;
};

// Not collective (every rank sees the same names, so every rank throws alike). InputError naming
// both paths and keys when `output` resolves to the same file as one of `inputs`; inputs with an
// empty path are ignored.
void require_output_not_input(const NamedPath& output, const std::vector<NamedPath>& inputs);

// Whether two paths name one file: the same path after resolving symbolic links, "." and "..",
// or, where both exist, the same device and inode.
bool same_file(const std::string& a, const std::string& b);

}  // namespace gplvm

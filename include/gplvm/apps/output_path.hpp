#pragma once
// Outputs never overwrite inputs: a command refuses an output path that names one of its input
// files (the same file by any path: relative, absolute, through a link).
#include <string>
#include <vector>

namespace gplvm {

// InputError naming the output and the option of the input it equals. `inputs` pairs an option
// name with the file it gave (the file need not exist; an absent one equals nothing).
void require_output_not_input(const std::string& output,
                              const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace gplvm

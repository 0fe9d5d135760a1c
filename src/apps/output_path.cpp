#include "gplvm/apps/output_path.hpp"

#include <filesystem>

#include "gplvm/core/error.hpp"

namespace gplvm {

void require_output_not_input(const std::string& output,
                              const std::vector<std::pair<std::string, std::string>>& inputs) {
  namespace fs = std::filesystem;
  for (const auto& [option, input] : inputs) {
    std::error_code ec;
    const bool same = fs::equivalent(output, input, ec);
    if (!ec && same)
      throw InputError("the output would overwrite the input given by --" + option,
                       {output, "output", input});
  }
}

}  // namespace gplvm

// gplvm import: placeholder until the importers land (see io/importers.hpp).
#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"

namespace gplvm {
int import_command(const Arguments& args, const Communicator& comm) {
  throw InputError("gplvm import is not available in this build");
}
}  // namespace gplvm

#pragma once
// The gplvm subcommands. Each takes its arguments (after the command name) and the world
// communicator, and returns the process exit code; errors are thrown as gplvm::Error.
#include <string>
#include <vector>

#include "gplvm/core/exit_codes.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

using Arguments = std::vector<std::string>;

int train_command(const Arguments& args, const Communicator& comm);
int embed_command(const Arguments& args, const Communicator& comm);
int encode_command(const Arguments& args, const Communicator& comm);
int import_command(const Arguments& args, const Communicator& comm);
int generate_command(const Arguments& args, const Communicator& comm);
int info_command(const Arguments& args, const Communicator& comm);
int exact_command(const Arguments& args, const Communicator& comm);
int evaluate_command(const Arguments& args, const Communicator& comm);
int predict_command(const Arguments& args, const Communicator& comm);
int export_command(const Arguments& args, const Communicator& comm);
int embedding_metrics_command(const Arguments& args, const Communicator& comm);
int geometry_command(const Arguments& args, const Communicator& comm);
int geodesic_command(const Arguments& args, const Communicator& comm);
int brownian_command(const Arguments& args, const Communicator& comm);
int symmetry_command(const Arguments& args, const Communicator& comm);
int sweep_command(const Arguments& args, const Communicator& comm);

}  // namespace gplvm

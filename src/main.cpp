// gplvm: the command-line entry point. Dispatches to a subcommand and turns exceptions into one
// error line and a non-zero exit code.
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <string>

#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/memory_reuse.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/io/hdf5_file.hpp"
#include "gplvm/optim/tao_minimizer.hpp"

namespace {

using namespace gplvm;
using Command = int (*)(const Arguments&, const Communicator&);

const std::map<std::string, std::pair<Command, const char*>>& commands() {
  static const std::map<std::string, std::pair<Command, const char*>> table = {
      {"train",
       {train_command, "train a GPLVM, sparse or Bayesian GPLVM, or VAE (distributed over MPI ranks)"}},
      {"encode", {encode_command, "map data through a trained encoder to latents (distributed)"}},
      {"import", {import_command, "convert IDX (.gz), NPY or CSV data to HDF5"}},
      {"generate", {generate_command, "write a synthetic data set with its true latents"}},
      {"info", {info_command, "describe a data or run file"}},
      {"exact", {exact_command, "exact log marginal likelihood of a trained run (ScaLAPACK)"}},
      {"evaluate",
       {evaluate_command, "RMSE/MAE/NLPD of the exact predictive and k-NN accuracy on test data"}},
  };
  return table;
}

void print_usage() {
  std::printf("usage: gplvm <command> [options]   (gplvm <command> --help for its options)\n\ncommands:\n");
  for (const auto& [name, entry] : commands()) std::printf("  %-10s %s\n", name.c_str(), entry.second);
}

// Input errors and errors agreed through Communicator::agree (a failed output write, a numerical
// failure every rank met) are raised on every rank alike, so rank 0 reports them and all ranks
// exit cleanly with the documented code. Anything else may have happened on one rank only: report
// it with the rank and abort the job (exit 1) so no rank waits forever in a collective.
int report(const Communicator& comm, const std::string& command, const std::exception& e, bool collective,
           int exit_code) {
  if (comm.is_root() || !collective)
    std::fprintf(stderr, "gplvm %s: error%s: %s\n", command.c_str(),
                 comm.size() > 1 && !collective ? (" on rank " + std::to_string(comm.rank())).c_str() : "",
                 e.what());
  std::fflush(stderr);
  if (!collective && comm.size() > 1) MPI_Abort(comm.raw(), kExitFailure);
  return exit_code;
}

int run_command(Command command, const std::string& name, const Arguments& args, const Communicator& comm) {
  try {
    // OMP_NUM_THREADS threads per rank, 1 when unset (P ranks on P cores never oversubscribe).
    threads_from_environment();
    if (const std::string warning = thread_warning(); !warning.empty()) log_warning(warning);
    return command(args, comm);
  } catch (const InputError& e) {
    return report(comm, name, e, true, kExitBadInput);
  } catch (const Error& e) {
    return report(comm, name, e, e.agreed() || comm.size() == 1, kExitFailure);
  } catch (const std::exception& e) {
    return report(comm, name, e, comm.size() == 1, kExitFailure);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MpiEnvironment mpi(&argc, &argv);
  // PETSc (TAO) can be initialised once per process only, and must end before MPI: held here.
  const PetscSession petsc;
  keep_freed_memory_for_reuse();
  const Communicator comm;
  if (comm.size() > 1) set_log_prefix("[rank " + std::to_string(comm.rank()) + "] ");
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    if (comm.is_root()) print_usage();
    return argc < 2 ? kExitBadInput : kExitOk;
  }
  const std::string name = argv[1];
  const auto it = commands().find(name);
  if (it == commands().end()) {
    if (comm.is_root())
      std::fprintf(stderr, "gplvm: unknown command '%s' (see gplvm --help)\n", name.c_str());
    return kExitBadInput;
  }
  const int status = run_command(it->second.first, name, Arguments(argv + 2, argv + argc), comm);
  // Every file is closed by now (a failed write closes its own); the library ends before MPI does.
  close_hdf5_library();
  return status;
}

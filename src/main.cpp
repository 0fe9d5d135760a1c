// gplvm: the command-line entry point. Dispatches to a subcommand and turns exceptions into one
// error line (and, with --json, one JSON object on stdout) and a non-zero exit code.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <string>

#include "gplvm/apps/commands.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/launcher_exit.hpp"
#include "gplvm/core/log.hpp"
#include "gplvm/core/memory_reuse.hpp"
#include "gplvm/core/threads.hpp"
#include "gplvm/core/version.hpp"
#include "gplvm/io/hdf5_file.hpp"
#include "gplvm/linalg/blas_kernels.hpp"
#include "gplvm/petsc/petsc_session.hpp"

namespace {

using namespace gplvm;
using Command = int (*)(const Arguments&, const Communicator&);

const std::map<std::string, std::pair<Command, const char*>>& commands() {
  static const std::map<std::string, std::pair<Command, const char*>> table = {
      {"train",
       {train_command, "train a GPLVM, sparse or Bayesian GPLVM, or VAE (distributed over MPI ranks)"}},
      {"embed",
       {embed_command,
        "embed data by PCA, classical MDS, Isomap, kernel PCA, Laplacian eigenmaps, LLE or diffusion "
        "maps, read as Wishart models (model.kind = probdr)"}},
      {"encode", {encode_command, "map data through a trained encoder to latents (distributed)"}},
      {"import", {import_command, "convert IDX (.gz), NPY or CSV data to HDF5"}},
      {"generate", {generate_command, "write a synthetic data set with its true latents"}},
      {"info", {info_command, "describe a data or run file"}},
      {"embedding-metrics",
       {embedding_metrics_command,
        "distance correlation, T(k), C(k), Shepard goodness, k-NN accuracy of latents"}},
      {"exact", {exact_command, "exact log marginal likelihood of a trained run (ScaLAPACK)"}},
      {"evaluate",
       {evaluate_command, "RMSE/MAE/NLPD of the exact predictive and k-NN accuracy on test data"}},
      {"predict", {predict_command, "predictive mean and variance of a trained run at given latents"}},
      {"geometry",
       {geometry_command, "expected Riemannian metric and magnification factor of a trained run's decoder"}},
      {"geodesic", {geodesic_command, "geodesics of a trained run's expected metric between latent points"}},
      {"brownian",
       {brownian_command, "Brownian motion on a trained run's latent space under its expected metric"}},
      {"symmetry",
       {symmetry_command,
        "symmetry-breaking diagnostic: B_max, the longest generating-graph edge of latents over the median"}},
      {"sweep",
       {sweep_command,
        "train one model per point of a config grid on groups of ranks; broken-symmetry rate per cell"}},
      {"export",
       {export_command, "write a run's latents, labels, hyperparameters and other arrays as .npy or CSV"}},
  };
  return table;
}

void print_usage() {
  std::printf("usage: gplvm <command> [options]   (gplvm <command> --help for its options)\n\ncommands:\n");
  for (const auto& [name, entry] : commands()) std::printf("  %-18s %s\n", name.c_str(), entry.second);
  std::printf("\n  gplvm --version   print the version and the git commit of this build\n");
  std::printf("  gplvm --openblas-coretype   print the OPENBLAS_CORETYPE to run with here (empty: none)\n");
}

// With --json a script reads stdout only, so an error is also one JSON object there: the message,
// the exit code and the error's context (null where it has none).
void print_json_error(const std::string& message, int exit_code, const ErrorContext& context) {
  JsonWriter w(0);
  w.begin_object().key("error").value(message).key("exit_code").value(exit_code);
  for (const auto& [name, text] :
       {std::pair{"file", &context.file}, {"key", &context.key}, {"value", &context.value}}) {
    w.key(name);
    if (text->empty())
      w.null();
    else
      w.value(*text);
  }
  w.end_object();
  std::printf("%s\n", w.str().c_str());
  std::fflush(stdout);
}

// Input errors and errors agreed through Communicator::agree (a failed output write, a numerical
// failure every rank met) are raised on every rank alike, so rank 0 reports them and all ranks
// exit cleanly with the documented code. Anything else may have happened on one rank only: report
// it with the rank and abort the job (exit 1) so no rank waits forever in a collective.
int report(const Communicator& comm, const std::string& command, const std::exception& e, bool collective,
           int exit_code, bool json) {
  if (comm.is_root() || !collective) {
    std::fprintf(stderr, "gplvm %s: error%s: %s\n", command.c_str(),
                 comm.size() > 1 && !collective ? (" on rank " + std::to_string(comm.rank())).c_str() : "",
                 e.what());
    if (json) {
      const auto* error = dynamic_cast<const Error*>(&e);
      print_json_error(e.what(), exit_code, error ? error->context() : ErrorContext{});
    }
  }
  std::fflush(stderr);
  if (!collective && comm.size() > 1) MPI_Abort(comm.raw(), kExitFailure);
  return exit_code;
}

int run_command(Command command, const std::string& name, const Arguments& args, const Communicator& comm,
                bool json) {
  try {
    // OMP_NUM_THREADS threads per rank, 1 when unset (P ranks on P cores never oversubscribe).
    threads_from_environment();
    if (const std::string warning = thread_warning(); !warning.empty()) log_warning(warning);
    return command(args, comm);
  } catch (const InputError& e) {
    return report(comm, name, e, true, kExitBadInput, json);
  } catch (const Error& e) {
    return report(comm, name, e, e.agreed() || comm.size() == 1, kExitFailure, json);
  } catch (const std::exception& e) {
    return report(comm, name, e, comm.size() == 1, kExitFailure, json);
  }
}

bool wants_json(int argc, char** argv) {
  return std::any_of(argv + 1, argv + argc, [](const char* arg) { return !std::strcmp(arg, "--json"); });
}

}  // namespace

int main(int argc, char** argv) {
  MpiEnvironment mpi(&argc, &argv);
  end_with_mpi_launcher();
  // PETSc (TAO) can be initialised once per process only, and must end before MPI: held here.
  const PetscSession petsc;
  keep_freed_memory_for_reuse();
  const Communicator comm;
  if (comm.size() > 1) set_log_prefix("[rank " + std::to_string(comm.rank()) + "] ");
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    if (comm.is_root()) print_usage();
    return argc < 2 ? kExitBadInput : kExitOk;
  }
  if (!std::strcmp(argv[1], "--version")) {
    if (comm.is_root()) std::printf("%s\n", version_text().c_str());
    return kExitOk;
  }
  // For scripts that start other BLAS users too (scripts/openblas_coretype.sh).
  if (!std::strcmp(argv[1], "--openblas-coretype")) {
    if (comm.is_root()) std::printf("%s\n", blas_coretype_to_use().c_str());
    return kExitOk;
  }
  const std::string name = argv[1];
  const bool json = wants_json(argc, argv);
  const auto it = commands().find(name);
  if (it == commands().end()) {
    if (comm.is_root()) {
      std::fprintf(stderr, "gplvm: unknown command '%s' (see gplvm --help)\n", name.c_str());
      if (json)
        print_json_error("unknown command '" + name + "' (see gplvm --help)", kExitBadInput,
                         {"", "command", name});
    }
    return kExitBadInput;
  }
  const int status = run_command(it->second.first, name, Arguments(argv + 2, argv + argc), comm, json);
  // Every file is closed by now (a failed write closes its own); the library ends before MPI does.
  close_hdf5_library();
  return status;
}

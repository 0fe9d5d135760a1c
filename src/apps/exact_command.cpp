// gplvm exact: the exact GPLVM log marginal likelihood log p(Y | X) of a trained run on ScaLAPACK
// (kernel blocks generated locally, pdpotrf, pdtrsm against Y; never Y Y^T). For Bayesian runs it
// is evaluated at the posterior means and, with --samples S, also estimated as E_q[log p(Y | X)].
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/parse_number.hpp"
#include "gplvm/core/resource_usage.hpp"
#include "gplvm/io/data_transform.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/linalg/blas_kernels.hpp"
#include "gplvm/objectives/exact_distributed.hpp"
#include "gplvm/run/json_summary.hpp"
#include "gplvm/run/manifold_data.hpp"
#include "gplvm/run/trained_run.hpp"

namespace gplvm {
namespace {

constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();

// "ROWSxCOLS": two positive integers and nothing else ("1x2junk" and "2x" are errors).
void parse_grid(const std::string& text, ExactDistributedOptions& options) {
  const auto x = text.find('x');
  const auto rows = read_unsigned(std::string_view(text).substr(0, x));
  const auto cols =
      x == std::string::npos ? std::nullopt : read_unsigned(std::string_view(text).substr(x + 1));
  require(rows && cols, "grid must be ROWSxCOLS, e.g. 2x4", {"", "--grid", text});
  require(*rows >= 1 && *cols >= 1 && *rows <= kMaxInt && *cols <= kMaxInt,
          "grid dimensions must be positive integers", {"", "--grid", text});
  options.grid_rows = static_cast<int>(*rows);
  options.grid_cols = static_cast<int>(*cols);
}

struct Latents {
  Matrix mean, variance;  // N x Q each; variance empty unless Bayesian
};

Latents read_latents(const std::string& file, const Communicator& comm) {
  const Hdf5ResultReader in(file, comm.raw());
  require(in.exists("/latent/mean"), "file has no /latent/mean", {file, "/latent/mean", ""});
  Latents l{in.read_matrix("/latent/mean"), {}};
  if (in.exists("/latent/var")) l.variance = in.read_matrix("/latent/var");
  return l;
}

// X = mu + sqrt(v) o eps with eps keyed by (seed, sample, row, dimension).
Matrix sample_latents(const Latents& l, std::uint64_t seed, std::uint64_t sample) {
  const CounterRng rng(seed);
  Matrix x = l.mean;
  for (Index i = 0; i < x.rows(); ++i)
    for (Index q = 0; q < x.cols(); ++q)
      x(i, q) += std::sqrt(l.variance(i, q)) * rng.normal(RngPurpose::reparameterisation, 0, sample,
                                                          static_cast<std::uint64_t>(i * x.cols() + q));
  return x;
}

CommandLine exact_command_line() {
  return CommandLine(
      "exact",
      {{"run", true, "run file written by gplvm train (latents, hyperparameters, data path)"},
       {"data", true, "training data file (default: the run's data.path; must have the same D)"},
       {"dataset", true, "dataset inside the data file (default: the run's data.dataset)"},
       {"latents", true, "file with /latent/mean (and /latent/var) to use instead of the run's"},
       {"block", true,
        "ScaLAPACK block size (default " + std::to_string(ExactDistributedOptions{}.block_size) + ")"},
       {"grid", true, "process grid ROWSxCOLS (default: 1xP below 64 ranks, see docs/architecture.md)"},
       {"samples", true, "Bayesian runs: Monte-Carlo samples of E_q[log p(Y|X)] (default 0)"},
       {"seed", true, "seed of the Monte-Carlo samples (default 0)"}},
      false);
}

// The training data as the run's model saw them (its chart's tangent coordinates, data.center /
// data.standardize, a linear basepoint's frames at m(x) of each row's latent).
DistributedDataset load_exact_data(const CommandLine& cl, const TrainedRun& run, const Latents& latents,
                                   const std::string& latents_file, const Communicator& comm) {
  DistributedDataset data =
      load_distributed_dataset(run.training_data_file(cl.value("data"), comm),
                               cl.value_or("dataset", run.settings.data_path), "", comm);
  apply_run_chart(read_run_chart(run.path, comm), data, comm);
  run.require_data_dim(data.file, data.cols);
  apply_data_transform(read_data_transform(run.path, comm), data);
  // Named: the file that was given in place of the run's own (--latents, else the data).
  const std::string counts =
      std::to_string(latents.mean.rows()) + " latents for " + std::to_string(data.rows) + " data rows";
  if (cl.value("latents"))
    require(static_cast<std::uint64_t>(latents.mean.rows()) == data.rows, "latents and data have different N",
            {latents_file, "--latents", counts});
  require(static_cast<std::uint64_t>(latents.mean.rows()) == data.rows, "latents and data have different N",
          {data.file, cl.value("data") ? "--data" : "the run's data.path", counts});
  return data;
}

// The exact log marginal likelihood at the latent means, and its Monte-Carlo expectation over
// q(X) when samples > 0.
struct ExactResult {
  double lml = 0, jitter = 0;
  int grid_rows = 0, grid_cols = 0;
  int samples = 0;
  double mc_mean = 0, mc_stderr = 0;
};

ExactResult exact_likelihoods(const Kernel& kernel, double noise, const Latents& latents,
                              const DistributedDataset& data, const ExactDistributedOptions& options,
                              int samples, std::uint64_t seed, const Communicator& comm) {
  const ExactDistributedGp gp(kernel, noise, latents.mean, data.local, data.partition, comm, options);
  ExactResult r{gp.log_marginal_likelihood(), gp.jitter(), gp.grid().nprow(), gp.grid().npcol(), samples};
  double mc_sq = 0;
  for (int s = 0; s < samples; ++s) {
    const Matrix x = sample_latents(latents, seed, static_cast<std::uint64_t>(s));
    const double v = ExactDistributedGp(kernel, noise, x, data.local, data.partition, comm, options)
                         .log_marginal_likelihood();
    r.mc_mean += v / samples;
    mc_sq += v * v / samples;
  }
  r.mc_stderr =
      samples > 1
          ? std::sqrt(std::max(mc_sq - r.mc_mean * r.mc_mean, 0.0) * samples / (samples - 1) / samples)
          : 0;
  return r;
}

void print_exact(bool json, const TrainedRun& run, const DistributedDataset& data, const ExactResult& r,
                 int block_size, double seconds, double peak_rss_max) {
  const double entries = static_cast<double>(data.rows * data.cols);
  const std::string grid = std::to_string(r.grid_rows) + "x" + std::to_string(r.grid_cols);
  if (json) {
    JsonWriter w = json_summary("exact");
    w.key("run").value(run.path).key("n").value(data.rows).key("d").value(data.cols);
    w.key("log_marginal_likelihood").value(r.lml).key("per_entry").value(r.lml / entries);
    w.key("jitter").value(r.jitter).key("grid").value(grid).key("block").value(block_size);
    w.key("seconds").value(seconds).key("peak_rss_bytes_max_rank").value(peak_rss_max);
    if (r.samples > 0) {
      w.key("samples").value(r.samples).key("expected_lml").value(r.mc_mean);
      w.key("expected_lml_stderr").value(r.mc_stderr);
    }
    w.end_object();
    std::printf("%s\n", w.str().c_str());
    return;
  }
  std::printf(
      "exact log p(Y|X) = %.10g (%.6g per entry) for N = %llu, D = %llu on a %s grid, block %d, %.1f s%s\n",
      r.lml, r.lml / entries, static_cast<unsigned long long>(data.rows),
      static_cast<unsigned long long>(data.cols), grid.c_str(), block_size, seconds,
      r.jitter > 0 ? (", jitter " + std::to_string(r.jitter)).c_str() : "");
  if (r.samples > 0)
    std::printf("E_q[log p(Y|X)] ~ %.10g +- %.3g (%d samples)\n", r.mc_mean, r.mc_stderr, r.samples);
}

}  // namespace

int exact_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl = exact_command_line();
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s", cl.help("Exact GPLVM log marginal likelihood of a trained run.").c_str());
    return kExitOk;
  }
  // Options first: a malformed number fails before any file is read.
  ExactDistributedOptions options;
  options.with_gradient = false;
  options.block_size = static_cast<int>(cl.integer_or("block", options.block_size, 1, kMaxInt));
  if (cl.value("grid")) parse_grid(*cl.value("grid"), options);
  const int samples = static_cast<int>(cl.integer_or("samples", 0, 0, kMaxInt));
  const std::uint64_t seed = cl.unsigned_or("seed", 0);
  if (comm.is_root())
    std::fprintf(stderr, "# %s\n", blas_kernel_note().c_str());  // LAPACK runs the factorisation
  const auto start = std::chrono::steady_clock::now();
  const TrainedRun run = load_trained_run(cl.required("run"), comm);
  run.require_gp_decoder("gplvm exact");
  const std::string latents_file = cl.value_or("latents", run.path);
  const Latents latents = read_latents(latents_file, comm);
  DistributedDataset data = load_exact_data(cl, run, latents, latents_file, comm);
  const std::unique_ptr<Model> model = run.model(data.rows, 0, 0);
  const Vector params = run.parameters(*model);
  // A linear basepoint: the likelihood of each row's coordinates at m(x) of its latent.
  if (const std::optional<SphereLinearBasepoint> basepoint = model->linear_basepoint(params)) {
    const auto begin = static_cast<Index>(data.partition.begin(comm.rank()));
    apply_linear_basepoint(*basepoint, latents.mean.middleRows(begin, data.local.rows()), data);
  }
  require(samples == 0 || latents.variance.size() > 0, "--samples needs a Bayesian run (latent variances)",
          {latents_file, "/latent/var", "absent"});
  ExactResult r;
  try {
    r = exact_likelihoods(*model->kernel(params), model->noise_variance(params), latents, data, options,
                          samples, seed, comm);
  } catch (const InputError& e) {
    // The solver calls its process grid "grid"; here the user set it with --grid.
    if (e.context().key != "grid") throw;
    throw InputError(e.reason(), {e.context().file, "--grid", e.context().value});
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double peak_rss_max = comm.allreduce_max(peak_resident_bytes());
  if (comm.is_root()) print_exact(cl.has("json"), run, data, r, options.block_size, seconds, peak_rss_max);
  return kExitOk;
}

}  // namespace gplvm

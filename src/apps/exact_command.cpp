// gplvm exact: the exact GPLVM log marginal likelihood log p(Y | X) of a trained run on ScaLAPACK
// (kernel blocks generated locally, pdpotrf, pdtrsm against Y; never Y Y^T). For Bayesian runs it
// is evaluated at the posterior means and, with --samples S, also estimated as E_q[log p(Y | X)].
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/json_summary.hpp"
#include "gplvm/apps/manifold_data.hpp"
#include "gplvm/apps/trained_run.hpp"
#include "gplvm/core/counter_rng.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/parse_number.hpp"
#include "gplvm/core/resource_usage.hpp"
#include "gplvm/io/data_transform.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/linalg/blas_kernels.hpp"
#include "gplvm/objectives/exact_distributed.hpp"

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

}  // namespace

int exact_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl(
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
  DistributedDataset data = load_distributed_dataset(run.training_data_file(cl.value("data"), comm),
                                                     cl.value_or("dataset", run.settings.data_path), "", comm);
  apply_run_chart(read_run_chart(run.path, comm), data, comm);  // manifold runs: tangent coordinates
  run.require_data_dim(data.file, data.cols);
  // The likelihood of the data as the run's model saw them (data.center / data.standardize).
  apply_data_transform(read_data_transform(run.path, comm), data);
  require(static_cast<std::uint64_t>(latents.mean.rows()) == data.rows, "latents and data have different N",
          {latents_file, "/latent/mean",
           std::to_string(latents.mean.rows()) + " latents for " + std::to_string(data.rows) + " data rows"});
  const std::unique_ptr<Model> model = run.model(data.rows, 0, 0);
  const Vector params = run.parameters(*model);
  const std::unique_ptr<Kernel> kernel_ptr = model->kernel(params);
  const Kernel& kernel = *kernel_ptr;
  const double noise = model->noise_variance(params);
  // A linear basepoint: the likelihood of each row's coordinates at m(x) of its latent.
  if (const std::optional<SphereLinearBasepoint> basepoint = model->linear_basepoint(params)) {
    const auto begin = static_cast<Index>(data.partition.begin(comm.rank()));
    apply_linear_basepoint(*basepoint, latents.mean.middleRows(begin, data.local.rows()), data);
  }

  const ExactDistributedGp gp(kernel, noise, latents.mean, data.local, data.partition, comm, options);
  const double lml = gp.log_marginal_likelihood();
  require(samples == 0 || latents.variance.size() > 0, "--samples needs a Bayesian run (latent variances)",
          {latents_file, "/latent/var", "absent"});
  double mc_mean = 0, mc_sq = 0;
  for (int s = 0; s < samples; ++s) {
    const Matrix x = sample_latents(latents, seed, static_cast<std::uint64_t>(s));
    const double v = ExactDistributedGp(kernel, noise, x, data.local, data.partition, comm, options)
                         .log_marginal_likelihood();
    mc_mean += v / samples;
    mc_sq += v * v / samples;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double peak_rss_max = comm.allreduce_max(peak_resident_bytes());
  if (!comm.is_root()) return kExitOk;
  const double entries = static_cast<double>(data.rows * data.cols);
  const double mc_stderr =
      samples > 1 ? std::sqrt(std::max(mc_sq - mc_mean * mc_mean, 0.0) * samples / (samples - 1) / samples)
                  : 0;
  if (cl.has("json")) {
    JsonWriter w = json_summary("exact");
    w.key("run").value(run.path).key("n").value(data.rows);
    w.key("d")
        .value(data.cols)
        .key("log_marginal_likelihood")
        .value(lml)
        .key("per_entry")
        .value(lml / entries);
    w.key("jitter")
        .value(gp.jitter())
        .key("grid")
        .value(std::to_string(gp.grid().nprow()) + "x" + std::to_string(gp.grid().npcol()));
    w.key("block")
        .value(options.block_size)
        .key("seconds")
        .value(seconds)
        .key("peak_rss_bytes_max_rank")
        .value(peak_rss_max);
    if (samples > 0)
      w.key("samples")
          .value(samples)
          .key("expected_lml")
          .value(mc_mean)
          .key("expected_lml_stderr")
          .value(mc_stderr);
    w.end_object();
    std::printf("%s\n", w.str().c_str());
  } else {
    std::printf(
        "exact log p(Y|X) = %.10g (%.6g per entry) for N = %llu, D = %llu on a %dx%d grid, block %d, %.1f "
        "s%s\n",
        lml, lml / entries, static_cast<unsigned long long>(data.rows),
        static_cast<unsigned long long>(data.cols), gp.grid().nprow(), gp.grid().npcol(), options.block_size,
        seconds, gp.jitter() > 0 ? (", jitter " + std::to_string(gp.jitter())).c_str() : "");
    if (samples > 0)
      std::printf("E_q[log p(Y|X)] ~ %.10g +- %.3g (%d samples)\n", mc_mean, mc_stderr, samples);
  }
  return kExitOk;
}

}  // namespace gplvm

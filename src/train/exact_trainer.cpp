#include "gplvm/train/exact_trainer.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/models/exact_gplvm_model.hpp"
#include "gplvm/train/full_batch_trainer.hpp"

namespace gplvm {
namespace {

bool same_on_every_rank(Index value, const Communicator& comm) {
  const auto v = static_cast<double>(value);
  return comm.allreduce_max(v) == -comm.allreduce_max(-v);
}

// ---------------------------------------------------------------------------------------------
// Training

void validate_training_options(const ExactTrainingOptions& o) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  require(positive(o.decoder.init.variance), "the initial kernel variance must be positive and finite",
          {"", "kernel_variance", std::to_string(o.decoder.init.variance)});
  require(positive(o.decoder.init.lengthscale), "the initial lengthscale must be positive and finite",
          {"", "lengthscale", std::to_string(o.decoder.init.lengthscale)});
  require(positive(o.min_noise_variance), "the noise variance floor must be positive and finite",
          {"", "min_noise_variance", std::to_string(o.min_noise_variance)});
  require(std::isfinite(o.decoder.noise_variance) && o.decoder.noise_variance >= o.min_noise_variance,
          "the initial noise variance must be finite and at least min_noise_variance (" +
              std::to_string(o.min_noise_variance) + ")",
          {"", "noise_variance", std::to_string(o.decoder.noise_variance)});
}

void validate_initial_latents(const ConstMatrixRef& latents, const RowPartition& partition,
                              const Communicator& comm) {
  const auto expected = static_cast<Index>(partition.count(comm.rank()));
  std::string problem;
  if (latents.rows() != expected)
    problem = "rank " + std::to_string(comm.rank()) + " has " + std::to_string(latents.rows()) +
              " initial latent rows but owns " + std::to_string(expected) + " data rows";
  else if (!latents.allFinite())
    problem = "initial latents of rank " + std::to_string(comm.rank()) + " contain NaN or Inf";
  comm.agree_on_problem(problem, "initial latents");
  require(same_on_every_rank(latents.cols(), comm), "ranks disagree on the latent dimension",
          {"", "latent_dim", std::to_string(latents.cols())});
  require(latents.cols() >= 1, "the latent dimension must be at least 1", {"", "latent_dim", "0"});
}

// The exact model these options describe, over this rank's rows.
ExactGplvmModel exact_model(const ExactTrainingOptions& o, Index data_dim, Index latent_dim,
                            const RowPartition& partition, const Communicator& comm) {
  ExactGplvmConfig config;
  SasModelConfig& d = config.base;
  d.data_dim = data_dim;
  d.latent_dim = latent_dim;
  d.latents = LatentKind::free;
  d.decoder = o.decoder;
  config.min_noise_variance = o.min_noise_variance;
  config.gp = o.gp;
  return ExactGplvmModel(config, partition.num_rows(), partition.begin(comm.rank()),
                         partition.count(comm.rank()));
}

FullBatchOptions full_batch_options(const ExactTrainingOptions& o) {
  FullBatchOptions f;
  f.gatol = o.gatol;
  f.grtol = o.grtol;
  f.gttol = o.gttol;
  f.max_iterations = o.max_iterations;
  f.on_iteration = o.on_iteration;
  f.should_stop = o.should_stop;
  return f;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// train_exact_gplvm

ExactTrainingResult train_exact_gplvm(const DataRef& Y_local, const RowPartition& partition,
                                      const Communicator& comm, const ConstMatrixRef& initial_latents,
                                      const ExactTrainingOptions& options) {
  validate_training_options(options);
  require_partitioned_data(Y_local, partition, comm);
  validate_initial_latents(initial_latents, partition, comm);
  const ExactGplvmModel model = exact_model(options, Y_local.cols(), initial_latents.cols(), partition, comm);
  const std::unique_ptr<FullBatchObjective> objective =
      model.make_full_batch_objective(comm, partition, Y_local);
  Vector initial = model.initial_parameters();
  model.set_local_block_rows(initial, RowMatrix(initial_latents));
  const FullBatchResult r = train_full_batch(model, *objective, comm, initial, full_batch_options(options));

  ExactTrainingResult result;
  result.latents = model.local_block_rows(r.params);
  result.kernel = model.kernel(r.params);
  result.noise_variance = model.noise_variance(r.params);
  result.log_marginal_likelihood = r.objective;
  result.lml_curve = r.curve;
  result.reason = r.reason;
  result.converged = r.converged;
  result.iterations = r.iterations;
  result.evaluations = r.evaluations;
  result.gradient_norm = r.gradient_norm;
  return result;
}

}  // namespace gplvm

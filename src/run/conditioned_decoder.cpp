#include "gplvm/run/conditioned_decoder.hpp"

#include <memory>

#include "gplvm/core/error.hpp"
#include "gplvm/eval/conditioning_set.hpp"
#include "gplvm/io/data_transform.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/models/model.hpp"
#include "gplvm/run/manifold_data.hpp"
#include "gplvm/run/training_side.hpp"

namespace gplvm {
namespace {

void refuse_linear_basepoint(const Model& model, const Vector& params, const TrainedRun& run) {
  require(!model.linear_basepoint(params),
          "the decoder's geometry is not defined for a run with a linear basepoint (its outputs are "
          "coordinates in a frame that moves with the latent)",
          {run.path, "model.basepoint", "linear"});
}

// Given latents and rows: the rows in the run's units, the latents replicated.
ConditionedDecoder given_rows(const TrainedRun& run, const DecoderConditioning& c, const Communicator& comm) {
  require(c.rows_file.has_value(), "given conditioning latents need the rows they belong to",
          {*c.latents_file, "--condition-data", "missing"});
  DistributedDataset rows = load_distributed_dataset(*c.rows_file, run.settings.data_path, "", comm);
  apply_run_chart(read_run_chart(run.path, comm), rows, comm);
  run.require_data_dim(rows.file, rows.cols);
  apply_data_transform(read_data_transform(run.path, comm), rows);
  const DistributedDataset latents = load_distributed_dataset(*c.latents_file, "/latent/mean", "", comm);
  require(
      latents.rows == rows.rows, "conditioning latents and rows differ in number",
      {latents.file, "/latent/mean",
       std::to_string(latents.rows) + " latents, " + std::to_string(rows.rows) + " rows in " + rows.file});
  const std::unique_ptr<Model> model =
      run.model(rows.rows, rows.partition.begin(comm.rank()), rows.partition.count(comm.rank()));
  const Vector params = run.parameters(*model);
  refuse_linear_basepoint(*model, params, run);
  require(latents.cols == static_cast<std::uint64_t>(model->kernel(params)->input_dim()),
          "conditioning latents have a different dimension from the run's",
          {latents.file, "/latent/mean", std::to_string(latents.cols) + " columns"});
  const Matrix Z = comm.allgather_rows(DataRef(latents.local));
  const RowMatrix Y = comm.allgather_rows(DataRef(rows.local));
  return {GpPosterior::given_observations(*model->kernel(params), Z, Y, model->noise_variance(params)),
          Z,
          std::to_string(rows.rows) + " rows of " + rows.file + " at the latents of " + latents.file,
          model->data_dim(),
          model->latent_space(),
          model->latent_dim()};
}

}  // namespace

ConditionedDecoder conditioned_decoder(const TrainedRun& run, const DecoderConditioning& c,
                                       const Communicator& comm) {
  run.require_gp_decoder("the decoder's geometry");
  if (c.latents_file) return given_rows(run, c, comm);
  const std::string data_file = run.training_data_file(c.data_file, comm);
  TrainingSide training = load_training_side(run, data_file, comm);
  const std::unique_ptr<Model> model =
      run.model(training.data.rows, training.data.partition.begin(comm.rank()),
                training.data.partition.count(comm.rank()));
  const Vector params = run.parameters(*model);
  refuse_linear_basepoint(*model, params, run);
  if (const std::unique_ptr<Predictor> own = model->make_predictor(params, training.evidence(), comm))
    if (const GpPosterior* posterior = own->replicated_posterior())
      return {*posterior,
              posterior->inputs(),
              std::to_string(posterior->num_conditioning()) + " inducing points",
              model->data_dim(),
              model->latent_space(),
              model->latent_dim()};
  const ConditioningSet set = conditioning_set(training.data, training.latent_mean, c.size, c.seed, comm);
  const RowMatrix Y = comm.allgather_rows(DataRef(set.local_y));
  return {
      GpPosterior::given_observations(*model->kernel(params), set.latents, Y, model->noise_variance(params)),
      set.latents,
      std::to_string(set.latents.rows()) + " training rows at their latents",
      model->data_dim(),
      model->latent_space(),
      model->latent_dim()};
}

}  // namespace gplvm

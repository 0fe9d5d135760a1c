// gplvm encode: latents of (new) data through a trained amortised encoder, distributed by rows.
#include <cstdio>
#include <filesystem>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/inference_options.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/core/version.hpp"
#include "gplvm/io/data_transform.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/run/json_summary.hpp"
#include "gplvm/run/manifold_data.hpp"
#include "gplvm/run/trained_run.hpp"
#include "gplvm/run/training_side.hpp"
#include "gplvm/train/run_file.hpp"

namespace gplvm {

int encode_command(const Arguments& args, const Communicator& comm) {
  std::vector<OptionSpec> options = {
      {"run", true, "run file written by gplvm train"},
      {"data", true, "HDF5 data file to encode (default: the run's training data; same D)"},
      {"dataset", true, "dataset inside --data (default /Y; without --data: the run's data.dataset)"},
      {"output", true, "HDF5 file to write /latent/mean (and /latent/var, /labels)"}};
  for (OptionSpec& spec : inference_option_specs()) options.push_back(std::move(spec));
  CommandLine cl("encode", std::move(options), false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root())
      std::printf("%s",
                  cl.help("Encode data with a trained amortised model, infer the latents of new data "
                          "under a free-latent one (GP predictive density, decoder fixed), or place new "
                          "rows by a ProbDR method's out-of-sample (Nystrom) extension.")
                      .c_str());
    return kExitOk;
  }
  const std::string run_path = cl.required("run"), output = cl.required("output");
  Hdf5ResultWriter::check_writable(output);
  const TrainedRun run = load_trained_run(run_path, comm);
  const bool own_data = !cl.value("data");
  const std::string data_file = run.training_data_file(cl.value("data"), comm);
  require_output_not_input({output, "--output"}, {{run_path, "--run"}, {data_file, "--data"}});
  clean_stale_temporaries_beside(output, comm);
  DistributedDataset data = load_distributed_dataset(
      data_file, cl.value_or("dataset", own_data ? run.settings.data_path : "/Y"), "/labels", comm);
  const SasModelConfig& m = run.settings.model;
  apply_run_chart(read_run_chart(run_path, comm), data, comm);  // manifold runs: tangent coordinates
  run.require_data_dim(data.file, data.cols);
  apply_data_transform(read_data_transform(run_path, comm), data);  // the run's data.center/standardize
  const std::uint64_t begin = data.partition.begin(comm.rank()), count = data.partition.count(comm.rank());
  const std::unique_ptr<Model> model = run.model(data.rows, begin, count);
  const Vector params = run.parameters(*model);
  RowMatrix mean, variance;
  // The model, not model.latents, says whether its latents are free: `exact` always has them.
  const bool inferred = model->latents() == LatentKind::free;
  // Free latents without a GP decoder (ProbDR) place new rows by the model's own extension.
  const bool extended = inferred && !own_data && !model->has_gp_decoder();
  if (extended) {
    const TrainingSide training = load_training_side(run, run.settings.data_file, comm);
    const auto first = static_cast<Index>(training.data.partition.begin(comm.rank()));
    const Index rows = training.data.local.rows();
    mean = model->extend_out_of_sample(params, training.data.local,
                                       training.latent_mean.middleRows(first, rows), data.local, comm);
  } else if (inferred) {
    run.require_gp_decoder("gplvm encode (free latents)");
    TrainingSide training = load_training_side(run, run.settings.data_file, comm);
    const std::optional<SphereLinearBasepoint> basepoint = model->linear_basepoint(params);
    if (basepoint) {  // as evaluate: coordinates that move with the latent
      const auto first = static_cast<Index>(training.data.partition.begin(comm.rank()));
      apply_linear_basepoint(*basepoint, training.latent_mean.middleRows(first, training.data.local.rows()),
                             training.data);
      mean = infer_latents_linear_basepoint(*model->kernel(params), model->noise_variance(params),
                                            training.evidence(), *basepoint, chart_frame_points(data.local),
                                            inference_options(cl), comm);
    } else {
      const std::unique_ptr<LatentSpace> space = make_latent_space(model->latent_space(), m.latent_dim);
      mean = infer_latents(*model->kernel(params), model->noise_variance(params), *space, training.evidence(),
                           data.local, inference_options(cl), comm);
    }
  } else {
    model->encode(params, data.local, begin, mean, &variance);
  }

  Hdf5ResultWriter out(output, comm.raw());
  out.write_distributed_rows("/latent/mean", mean, begin, data.rows);
  out.write_attribute("/latent/mean", "latent_space", model->latent_space());
  if (model->bayesian() && !inferred) out.write_distributed_rows("/latent/var", variance, begin, data.rows);
  if (data.labels) out.write_distributed_int64("/labels", *data.labels, begin, data.rows);
  out.write_attribute("/", "run", std::filesystem::absolute(run_path).string());
  out.write_attribute("/", "data_file", std::filesystem::absolute(data.file).string());
  out.write_attribute("/", "version", version());
  out.write_attribute("/", "git_commit", git_commit());
  out.write_attribute("/latent", "method", extended ? "extended" : inferred ? "inferred" : "encoded");
  if (extended) out.write_attribute("/latent", "extension", model->out_of_sample_extension());
  out.commit();
  if (comm.is_root()) {
    if (cl.has("json")) {
      JsonWriter w = json_summary("encode");
      w.key("output").value(output).key("rows").value(data.rows);
      w.key("latent_dim").value(m.latent_dim).key("latent_space").value(model->latent_space()).end_object();
      std::printf("%s\n", w.str().c_str());
    } else {
      std::printf("wrote %s: %llu latents of dimension %ld (%s)\n", output.c_str(),
                  static_cast<unsigned long long>(data.rows), static_cast<long>(m.latent_dim),
                  model->latent_space().c_str());
    }
  }
  return kExitOk;
}

}  // namespace gplvm

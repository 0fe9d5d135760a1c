// gplvm encode: latents of (new) data through a trained amortised encoder, distributed by rows.
#include <cstdio>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/trained_run.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/output_guard.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/io/temporary_files.hpp"
#include "gplvm/train/run_file.hpp"

namespace gplvm {

int encode_command(const Arguments& args, const Communicator& comm) {
  CommandLine cl("encode",
                 {{"run", true, "run file written by gplvm train"},
                  {"data", true, "HDF5 data file to encode"},
                  {"dataset", true, "dataset inside --data (default /Y)"},
                  {"output", true, "HDF5 file to write /latent/mean (and /latent/var, /labels)"}},
                 false);
  cl.parse(args);
  if (cl.has("help")) {
    if (comm.is_root()) std::printf("%s", cl.help("Encode data with a trained amortised model.").c_str());
    return kExitOk;
  }
  const std::string run_path = cl.required("run"), output = cl.required("output");
  require_output_not_input({output, "--output"}, {{run_path, "--run"}, {cl.required("data"), "--data"}});
  Hdf5ResultWriter::check_writable(output);
  clean_stale_temporaries_beside(output, comm);
  const TrainedRun run = load_trained_run(run_path, comm);
  const DistributedDataset data =
      load_distributed_dataset(cl.required("data"), cl.value_or("dataset", "/Y"), "/labels", comm);
  const SasModelConfig& m = run.settings.model;
  require(data.cols == static_cast<std::uint64_t>(m.data_dim),
          "data have a different dimension from the training data",
          {data.file, data.path,
           std::to_string(data.cols) + " columns, model trained on " + std::to_string(m.data_dim)});
  require(m.latents == LatentKind::amortised,
          "only amortised models can encode new data (this run has free latents)",
          {run_path, "model.latents", "free"});
  const std::uint64_t begin = data.partition.begin(comm.rank()), count = data.partition.count(comm.rank());
  const std::unique_ptr<Model> model = run.model(data.rows, begin, count);
  const Vector params = run.parameters(*model);
  RowMatrix mean, variance;
  model->encode(params, data.local, begin, mean, &variance);

  Hdf5ResultWriter out(output, comm.raw());
  out.write_distributed_rows("/latent/mean", mean, begin, data.rows);
  if (model->bayesian()) out.write_distributed_rows("/latent/var", variance, begin, data.rows);
  if (data.labels) out.write_distributed_int64("/labels", *data.labels, begin, data.rows);
  out.write_attribute("/", "run", run_path);
  out.write_attribute("/", "data_file", data.file);
  out.commit();
  if (comm.is_root()) {
    if (cl.has("json")) {
      JsonWriter w(0);
      w.begin_object().key("command").value("encode").key("output").value(output).key("rows").value(
          data.rows);
      w.key("latent_dim").value(m.latent_dim).end_object();
      std::printf("%s\n", w.str().c_str());
    } else {
      std::printf("wrote %s: %llu latents of dimension %ld\n", output.c_str(),
                  static_cast<unsigned long long>(data.rows), static_cast<long>(m.latent_dim));
    }
  }
  return kExitOk;
}

}  // namespace gplvm

// gplvm encode: latents of (new) data through a trained amortised encoder, distributed by rows.
#include <cstdio>

#include "gplvm/apps/command_line.hpp"
#include "gplvm/apps/commands.hpp"
#include "gplvm/apps/train_config.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/core/json_writer.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/result_writer.hpp"
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
  Hdf5ResultWriter::check_writable(output);
  const Hdf5ResultReader run(run_path, comm.raw());
  require(run.exists("/config") && run.exists("/params/shared"), "not a gplvm run file",
          {run_path, "/params/shared", ""});
  const Config config =
      resolve_config_text(train_config_schema(), run.read_string("/config"), run_path + ":/config", {});
  const DistributedDataset data =
      load_distributed_dataset(cl.required("data"), cl.value_or("dataset", "/Y"), "/labels", comm);
  const auto trained_dim = static_cast<std::uint64_t>(run.read_attribute_int64("/", "data_dim"));
  require(data.cols == trained_dim, "data have a different dimension from the training data",
          {data.file, data.path,
           std::to_string(data.cols) + " columns, model trained on " + std::to_string(trained_dim)});
  const TrainSettings s = train_settings(config, static_cast<Index>(data.cols));
  require(s.model.latents == LatentKind::amortised,
          "only amortised models can encode new data (this run has free latents)",
          {run_path, "model.latents", "free"});

  const std::uint64_t begin = data.partition.begin(comm.rank()), count = data.partition.count(comm.rank());
  const SasModel model(s.model, data.rows, begin, count);
  Vector params = model.initial_parameters();
  params.head(model.num_shared_parameters()) = run.read_vector("/params/shared");
  RowMatrix mean, variance;
  model.encode(params, data.local, begin, mean, &variance);

  Hdf5ResultWriter out(output, comm.raw());
  out.write_distributed_rows("/latent/mean", mean, begin, data.rows);
  if (s.model.bayesian) out.write_distributed_rows("/latent/var", variance, begin, data.rows);
  if (data.labels) out.write_distributed_int64("/labels", *data.labels, begin, data.rows);
  out.write_attribute("/", "run", run_path);
  out.write_attribute("/", "data_file", data.file);
  out.commit();
  if (comm.is_root()) {
    if (cl.has("json")) {
      JsonWriter w(0);
      w.begin_object().key("command").value("encode").key("output").value(output).key("rows").value(
          data.rows);
      w.key("latent_dim").value(s.model.latent_dim).end_object();
      std::printf("%s\n", w.str().c_str());
    } else {
      std::printf("wrote %s: %llu latents of dimension %ld\n", output.c_str(),
                  static_cast<unsigned long long>(data.rows), static_cast<long>(s.model.latent_dim));
    }
  }
  return kExitOk;
}

}  // namespace gplvm

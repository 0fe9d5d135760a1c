#include "gplvm/apps/geometry_options.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/io/distributed_dataset.hpp"
#include "gplvm/io/result_writer.hpp"

namespace gplvm {

std::vector<OptionSpec> conditioning_option_specs() {
  return {
      {"condition", true,
       "training rows the exact posterior of sas, bayesian_sas and exact runs conditions on (default 1000; "
       "0: all); sparse runs use their inducing points"},
      {"seed", true, "seed choosing the conditioning rows (default 0)"},
      {"data", true, "training data file, instead of the one the run was trained on"},
      {"condition-latents", true,
       "condition on these latents (/latent/mean, e.g. test rows encoded by gplvm encode) instead"},
      {"condition-data", true, "the rows of --condition-latents (the run's dataset path)"}};
}

DecoderConditioning conditioning_from(const CommandLine& cl) {
  DecoderConditioning c;
  c.size = cl.unsigned_or("condition", c.size);
  c.seed = cl.unsigned_or("seed", 0);
  c.data_file = cl.value("data");
  c.latents_file = cl.value("condition-latents");
  c.rows_file = cl.value("condition-data");
  require(!c.rows_file || c.latents_file, "--condition-data needs --condition-latents",
          {"", "--condition-data", *c.rows_file});
  return c;
}

GeometryFiles geometry_files(const CommandLine& cl, std::vector<NamedPath> extra_inputs) {
  GeometryFiles f;
  f.run = cl.required("run");
  f.output = cl.required("output");
  f.conditioning = conditioning_from(cl);
  f.points = cl.value_or("points", f.run);
  std::vector<NamedPath> inputs = conditioning_inputs(f.run, f.conditioning);
  inputs.push_back({f.points, "--points"});
  for (NamedPath& p : extra_inputs) inputs.push_back(std::move(p));
  require_output_not_input({f.output, "--output"}, inputs);
  Hdf5ResultWriter::check_writable(f.output);
  return f;
}

Matrix latent_points(const std::string& file, const Communicator& comm) {
  const DistributedDataset latents = load_distributed_dataset(file, "/latent/mean", "", comm);
  return comm.allgather_rows(DataRef(latents.local));
}

Vector coordinates(const std::string& text, Index q, const std::string& option) {
  const std::vector<double> values = parse_real_list(text, option);
  require(static_cast<Index>(values.size()) == q, "a point needs one coordinate per latent dimension",
          {"", option, text + " (" + std::to_string(values.size()) + " of " + std::to_string(q) + ")"});
  return Eigen::Map<const Vector>(values.data(), q);
}

Vector indexed_point(const Matrix& points, std::int64_t index, const std::string& option,
                     const std::string& file) {
  require(index >= 0 && index < points.rows(), "a point index is out of range",
          {file, option, std::to_string(index) + " (" + std::to_string(points.rows()) + " points)"});
  return points.row(index).transpose();
}

std::vector<NamedPath> conditioning_inputs(const std::string& run, const DecoderConditioning& c) {
  std::vector<NamedPath> inputs{{run, "--run"}};
  if (c.data_file) inputs.emplace_back(*c.data_file, "--data");
  if (c.latents_file) inputs.emplace_back(*c.latents_file, "--condition-latents");
  if (c.rows_file) inputs.emplace_back(*c.rows_file, "--condition-data");
  return inputs;
}

}  // namespace gplvm

#include "gplvm/run/training_side.hpp"

#include "gplvm/core/error.hpp"
#include "gplvm/io/data_transform.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/run/manifold_data.hpp"

namespace gplvm {

TrainingSide load_training_side(const TrainedRun& run, const std::string& data_file,
                                const Communicator& comm) {
  TrainingSide t{
      load_distributed_dataset(data_file, run.settings.data_path, "", comm), {}, {}, false, {}, {}};
  t.chart = read_run_chart(run.path, comm);
  apply_run_chart(t.chart, t.data, comm);  // the tangent coordinates the model was trained on
  const Hdf5ResultReader run_file(run.path, comm.raw());
  t.latent_mean = run_file.read_matrix("/latent/mean");
  t.has_variance = run_file.exists("/latent/var");
  if (t.has_variance) t.latent_variance = run_file.read_matrix("/latent/var");
  require(
      static_cast<std::uint64_t>(t.latent_mean.rows()) == t.data.rows,
      "run latents and training data differ in N",
      {data_file, run.settings.data_path,
       std::to_string(t.data.rows) + " rows, run has " + std::to_string(t.latent_mean.rows()) + " latents"});
  require(t.data.cols == static_cast<std::uint64_t>(run.settings.model.data_dim),
          "training data have a different dimension from the run's",
          {data_file, run.settings.data_path, std::to_string(t.data.cols)});
  t.transform = read_data_transform(run_file, static_cast<Index>(t.data.cols));
  apply_data_transform(t.transform, t.data);  // the units the model was trained in
  return t;
}

}  // namespace gplvm

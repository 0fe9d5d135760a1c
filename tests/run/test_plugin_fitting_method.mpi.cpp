// A fitting method defined in this file alone trains through the train command: its registration
// adds it to optim.method's accepted values and help, and the train command calls it for the model
// it built, at any rank count. The method, "start_only", writes the model as started from its data
// without a single step (a baseline: how good is the start?); with free latents started at PCA, the
// run file's latents must be the data's principal component scores at unit variance, checked here
// against an SVD of the data.
#include <gtest/gtest.h>
#include <Eigen/SVD>

#include "gplvm/apps/commands.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/run/fitting_method.hpp"
#include "gplvm/run/train_config.hpp"
#include "gplvm/run/training_outputs.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

int write_start(const FitRun& run) {
  const TrainingOutputs outputs =
      prepare_training_outputs(run.settings, run.comm, run.force, run.config_file);
  TrainingState state;
  state.params = run.model.initial_parameters();
  const LocalLatents latents = encode_local_latents(run.model, state.params, run.rows);
  write_run_file(run.settings.output_path, run.comm, {run.model, state, latents, run.labels, run.metadata()},
                 false);
  return kExitOk;
}

void register_start_only() {
  FittingMethod method{"start_only", "the model as started from its data, untrained", write_start};
  register_fitting_method(method);
}

class PluginFittingMethod : public ::testing::Test {
 protected:
  const Communicator comm_{MPI_COMM_WORLD};
  const testing::SharedScratchDir scratch_{comm_, "gplvm-plugin-method"};
  const std::string& dir_ = scratch_.path();
};

TEST_F(PluginFittingMethod, IsUnknownUntilRegisteredThenTrainsThroughTheTrainCommand) {
  const Arguments generate = {"--kind", "gp",  "--n", "90",       "--d",
                              "7",      "--q", "3",   "--output", dir_ + "/data.h5"};
  ASSERT_EQ(generate_command(generate, comm_), kExitOk);
  const Arguments train = {"--data.path=" + dir_ + "/data.h5", "--model.latents=free", "--model.init=pca",
                           "--optim.method=start_only",        "--sas.batch_size=32",  "--sas.active_size=8",
                           "--output.path=" + dir_ + "/run.h5"};
  EXPECT_THROW(train_command(train, comm_), InputError);  // not registered yet: optim.method refuses it

  register_start_only();
  const ConfigSchema schema = train_config_schema();
  ASSERT_NE(schema.find("optim.method"), nullptr);
  EXPECT_NE(schema.find("optim.method")->description.find("start_only (the model as started"),
            std::string::npos);

  ASSERT_EQ(train_command(train, comm_), kExitOk);
  const Hdf5ResultReader run(dir_ + "/run.h5", comm_.raw());
  const Matrix latents = run.read_matrix("/latent/mean");
  const Matrix y = Hdf5ResultReader(dir_ + "/data.h5", comm_.raw()).read_matrix("/Y");
  ASSERT_EQ(latents.rows(), 90);
  ASSERT_EQ(latents.cols(), 2);
  // Principal component scores of the centred data, scaled to unit variance, up to each column's sign.
  const Matrix centred = y.rowwise() - y.colwise().mean();
  const Eigen::JacobiSVD<Matrix> svd(centred, Eigen::ComputeThinU);
  for (Index q = 0; q < 2; ++q) {
    const Vector expected = svd.matrixU().col(q) * std::sqrt(90.0);
    const double sign = expected.dot(latents.col(q)) >= 0 ? 1.0 : -1.0;
    EXPECT_LE((sign * latents.col(q) - expected).norm() / expected.norm(), 1e-8) << "column " << q;
  }
}

}  // namespace
}  // namespace gplvm

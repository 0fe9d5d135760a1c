// A model kind defined in this file alone trains through the train command: its registration adds
// it to model.kind's accepted values and help, and its factory builds the model that is trained and
// written, at any rank count. The kind is probabilistic PCA trained by stochastic active sets: SAS
// whose GP decoder has the linear kernel, whatever model.kernel says.
#include <gtest/gtest.h>

#include "gplvm/apps/commands.hpp"
#include "gplvm/io/result_writer.hpp"
#include "gplvm/models/model_registry.hpp"
#include "gplvm/models/sas_model.hpp"
#include "gplvm/models/sas_model_config.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/run/train_config.hpp"
#include "support/test_support.hpp"

namespace gplvm {
namespace {

std::unique_ptr<Model> make_linear_sas(const Config& config, const ModelRows& rows) {
  SasModelConfig m = sas_model_config(config, rows.data_dim);
  m.decoder.kernel = "linear";
  return std::make_unique<SasModel>(m, rows.num_data, rows.local_begin, rows.local_rows);
}

void register_linear_sas() {
  ModelKind kind{"linear_sas", "probabilistic PCA by stochastic active sets", make_linear_sas};
  register_model_kind(kind);
}

class PluginModelKind : public ::testing::Test {
 protected:
  const Communicator comm_{MPI_COMM_WORLD};
  const testing::SharedScratchDir scratch_{comm_, "gplvm-plugin-kind"};
  const std::string& dir_ = scratch_.path();
};

TEST_F(PluginModelKind, IsUnknownUntilRegisteredThenTrainsThroughTheTrainCommand) {
  const Arguments generate = {"--kind", "gp", "--n", "120", "--d", "6", "--output", dir_ + "/data.h5"};
  ASSERT_EQ(generate_command(generate, comm_), kExitOk);
  const Arguments train = {"--data.path=" + dir_ + "/data.h5",
                           "--model.kind=linear_sas",
                           "--model.encoder_hidden=[8]",
                           "--sas.batch_size=32",
                           "--sas.active_size=8",
                           "--train.max_steps=5",
                           "--train.progress_seconds=1000",
                           "--output.path=" + dir_ + "/run.h5"};
  EXPECT_THROW(train_command(train, comm_), InputError);  // not registered yet: model.kind refuses it

  register_linear_sas();
  const ConfigSchema schema = train_config_schema();
  const ConfigKey* key = schema.find("model.kind");
  ASSERT_NE(key, nullptr);
  EXPECT_NE(key->description.find("linear_sas (probabilistic PCA"), std::string::npos) << key->description;

  ASSERT_EQ(train_command(train, comm_), kExitOk);
  const Hdf5ResultReader run(dir_ + "/run.h5", comm_.raw());
  // The factory's model was trained: a linear kernel's hyperparameters, not eq_ard's lengthscales.
  EXPECT_EQ(run.read_attribute_string("/", "kernel"), "linear");
  EXPECT_TRUE(run.exists("/params/kernel/variances")) << "the linear kernel's variances";
  EXPECT_FALSE(run.exists("/params/kernel/lengthscales"));
  EXPECT_EQ(run.read_matrix("/latent/mean").rows(), 120);
  EXPECT_NE(run.read_string("/config").find("kind = \"linear_sas\""), std::string::npos);
}

}  // namespace
}  // namespace gplvm

#include "gplvm/run/trained_run.hpp"

#include <filesystem>

#include "gplvm/core/error.hpp"
#include "gplvm/models/model_registry.hpp"

namespace gplvm {

TrainedRun load_trained_run(const std::string& path, const Communicator& comm) {
  const Hdf5ResultReader run(path, comm.raw());
  require(run.exists("/config") && run.exists("/params/shared"), "not a gplvm run file (no /params/shared)",
          {path, "/params/shared", ""});
  const Config config =
      resolve_config_text(train_config_schema(), run.read_string("/config"), path + ":/config", {});
  TrainedRun t{path, config, {}, {}, 0};
  t.settings = train_settings(config, run.read_attribute_int64("/", "data_dim"));
  t.shared = run.read_vector("/params/shared");
  t.num_data = static_cast<std::uint64_t>(run.read_attribute_int64("/", "num_data"));
  return t;
}

std::unique_ptr<Model> TrainedRun::model(std::uint64_t num_rows, std::uint64_t local_begin,
                                         std::uint64_t local_rows) const {
  return make_model(config, {settings.model.data_dim, num_rows, local_begin, local_rows});
}

Vector TrainedRun::parameters(const Model& model) const {
  require(model.num_shared_parameters() == shared.size(),
          "run file parameters do not match its configuration",
          {path, "/params/shared", std::to_string(shared.size())});
  Vector p = model.initial_parameters();
  p.head(shared.size()) = shared;
  return p;
}

void TrainedRun::require_gp_decoder(const std::string& command) const {
  const std::unique_ptr<Model> m = model(num_data, 0, 0);
  require(m->has_gp_decoder(), command + " needs a GP decoder (kernel and noise); this run's model has none",
          {path, "model.kind", m->kind()});
}

void TrainedRun::require_data_dim(const std::string& file, std::uint64_t cols) const {
  const auto trained = static_cast<std::uint64_t>(settings.model.data_dim);
  require(cols == trained,
          "data have D = " + std::to_string(cols) + " columns but run '" + path + "' was trained on D = " +
              std::to_string(trained) + " (training data '" + settings.data_file + "')",
          {file, "--data", std::to_string(cols)});
}

std::string TrainedRun::training_data_file(const std::optional<std::string>& override_file,
                                           const Communicator& comm) const {
  if (override_file) return *override_file;
  const std::string& stored = settings.data_file;
  comm.all_or_none([&] {
    require(
        std::filesystem::exists(stored),
        "the run's training data file does not exist (run '" + path + "'); give the data with --data FILE",
        {stored, "data.path", ""});
  });
  return stored;
}

}  // namespace gplvm

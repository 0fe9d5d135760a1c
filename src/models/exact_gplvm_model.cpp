#include "gplvm/models/exact_gplvm_model.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/models/exact_gplvm_objective.hpp"
#include "gplvm/models/sas_model_config.hpp"

namespace gplvm {
namespace {

// The model's flat parameters <-> the exact objective's slice ([shared on rank 0 | X rows]).
class ExactFullBatchObjective final : public FullBatchObjective {
 public:
  ExactFullBatchObjective(const ExactGplvmModel& model, double min_noise_variance, const Kernel& kernel,
                          const DataRef& local, const RowPartition& partition, const Communicator& comm,
                          const ExactDistributedOptions& gp)
      : model_(model),
        comm_(comm),
        min_noise_variance_(min_noise_variance),
        objective_(std::make_unique<ExactGplvmObjective>(kernel, local, partition, comm, gp)) {}

  double evaluate(const Vector& params, Vector& gradient) const override {
    const Index shared = model_.num_shared_parameters();
    const Vector x = objective_->pack(model_.local_block_rows(params), params.head(shared - 1),
                                      std::exp(params[shared - 1]));
    Vector x_gradient(x.size());
    const double negated = (*objective_)(x, x_gradient);
    // The objective is minimised and keeps the shared gradient on rank 0 only.
    gradient.resize(params.size());
    Vector shared_gradient = comm_.is_root() ? Vector(-x_gradient.head(shared)) : Vector(shared);
    comm_.broadcast(shared_gradient.data(), shared, 0);
    gradient.head(shared) = shared_gradient;
    model_.set_local_block_rows(gradient, -objective_->local_latents(x_gradient));
    for (const Index i : model_.fixed_parameters()) gradient[i] = 0.0;
    return -negated;
  }

  std::vector<std::pair<Index, double>> shared_lower_bounds() const override {
    return {{model_.num_shared_parameters() - 1, std::log(min_noise_variance_)}};
  }
  std::string value_name() const override { return "log_marginal_likelihood"; }

 private:
  const ExactGplvmModel& model_;
  const Communicator& comm_;
  double min_noise_variance_;
  std::unique_ptr<ExactGplvmObjective> objective_;  // its evaluations count, so not const
};

}  // namespace

ExactGplvmConfig exact_gplvm_config(const Config& c, Index data_dim) {
  ExactGplvmConfig e;
  e.decoder = sas_model_config(c, data_dim);
  e.decoder.latents = LatentKind::free;  // whatever model.latents says
  require(e.decoder.precision == Precision::float64,
          "model.kind = \"exact\" runs in float64 only (its Cholesky of the N x N kernel needs it)",
          {"", "model.precision", "float32"});
  e.min_noise_variance = c.get_double("exact.min_noise_variance");
  require(e.decoder.noise_variance >= e.min_noise_variance,
          "the initial noise variance must be at least exact.min_noise_variance (" +
              std::to_string(e.min_noise_variance) + ")",
          {"", "model.noise_variance", std::to_string(e.decoder.noise_variance)});
  e.fixed_hyperparameters = c.get_string_list("model.fixed_hyperparameters");
  e.gp.block_size = static_cast<int>(c.get_int("exact.block_size"));
  e.gp.grid_rows = static_cast<int>(c.get_int("exact.grid_rows"));
  e.gp.grid_cols = static_cast<int>(c.get_int("exact.grid_cols"));
  return e;
}

ExactGplvmModel::ExactGplvmModel(ExactGplvmConfig config, std::uint64_t num_data, std::uint64_t local_begin,
                                 std::uint64_t local_rows)
    : Model(num_data, local_begin, local_rows),
      config_(std::move(config)),
      decoder_(config_.decoder, num_data, local_begin, local_rows) {
  // The kernel's hyperparameters come first in the flat layout (models/sas_model.hpp).
  const Kernel& kernel = decoder_.kernel_prototype();
  for (const std::string& name : config_.fixed_hyperparameters) {
    Index found = -1;
    for (Index i = 0; i < kernel.num_hyperparameters(); ++i) {
      const std::string own = kernel.hyperparameter_name(i);
      if (own == name || (own.rfind("log_", 0) == 0 && own.substr(4) == name)) found = i;
    }
    if (found < 0) {
      std::string names;
      for (Index i = 0; i < kernel.num_hyperparameters(); ++i)
        names += (i ? ", " : "") + kernel.hyperparameter_name(i);
      throw InputError("no hyperparameter of this name in model.kernel (it has: " + names + ")",
                       {"", "model.fixed_hyperparameters", name});
    }
    fixed_parameters_.push_back(found);
  }
}

Vector ExactGplvmModel::initial_parameters() const {
  return decoder_.initial_parameters();
}

void ExactGplvmModel::initialise_from_data(const Communicator& comm, const RowPartition& partition,
                                           LocalRows local_rows) {
  require(std::holds_alternative<DataRef>(local_rows), "the exact model needs its rows in float64",
          {"", "model.precision", "float32"});
  decoder_.initialise_from_data(comm, partition, local_rows);  // the free latents' start (model.init)
}

std::unique_ptr<TrainingStep> ExactGplvmModel::make_step(const Communicator&, const RowPartition&,
                                                         LocalRows) const {
  throw InputError("model.kind = \"exact\" is trained full batch (L-BFGS), not in minibatch steps",
                   {"", "model.kind", "exact"});
}

std::unique_ptr<FullBatchObjective> ExactGplvmModel::make_full_batch_objective(const Communicator& comm,
                                                                               const RowPartition& partition,
                                                                               LocalRows local_rows) const {
  require(std::holds_alternative<DataRef>(local_rows), "the exact model needs its rows in float64",
          {"", "model.precision", "float32"});
  const DataRef& local = std::get<DataRef>(local_rows);
  // The memory check reads /proc and talks to every rank: once here, not at every evaluation.
  ExactDistributedOptions gp = config_.gp;
  if (gp.check_memory)
    check_exact_distributed_memory(static_cast<Index>(partition.num_rows()), local.cols(), comm, gp);
  gp.check_memory = false;
  return std::make_unique<ExactFullBatchObjective>(*this, config_.min_noise_variance,
                                                   decoder_.kernel_prototype(), local, partition, comm, gp);
}

}  // namespace gplvm

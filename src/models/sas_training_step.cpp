#include "gplvm/models/sas_training_step.hpp"

#include "gplvm/core/error.hpp"

namespace gplvm {

SasTrainingStep::SasTrainingStep(const SasModel& model, const Communicator& comm,
                                 const RowPartition& partition, LocalRows local_rows)
    : num_active_(model.config().active_size),
      step_(std::visit([&](const auto& rows) { return DistributedSasStep(model, comm, partition, rows); },
                       local_rows)) {
  require(num_active_ >= 1, "active set size must be at least 1",
          {"", "sas.active_size", std::to_string(num_active_)});
}

BatchTerms SasTrainingStep::evaluate(const Vector& params, const std::vector<std::uint64_t>& batch_rows,
                                     StepKey key, Vector& gradient, const std::vector<int>* summed_slices,
                                     Float32Shadow* shadow) const {
  return step_.evaluate(params, batch_rows, num_active_, key, gradient, summed_slices, shadow);
}

std::unique_ptr<TrainingStep> SasModel::make_step(const Communicator& comm, const RowPartition& partition,
                                                  LocalRows local_rows) const {
  return std::make_unique<SasTrainingStep>(*this, comm, partition, local_rows);
}

}  // namespace gplvm

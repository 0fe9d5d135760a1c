#pragma once
// The SAS / Bayesian SAS model's TrainingStep: the data-parallel step (distributed_sas_step.hpp)
// with the model's active-set size, the first A rows of every batch.
#include "gplvm/models/distributed_sas_step.hpp"

namespace gplvm {

class SasTrainingStep final : public TrainingStep {
 public:
  SasTrainingStep(const SasModel& model, const Communicator& comm, const RowPartition& partition,
                  LocalRows local_rows);

  BatchTerms evaluate(const Vector& params, const std::vector<std::uint64_t>& batch_rows, StepKey key,
                      Vector& gradient, const std::vector<int>* summed_slices,
                      Float32Shadow* shadow) const override;

 private:
  Index num_active_;
  DistributedSasStep step_;
};

}  // namespace gplvm

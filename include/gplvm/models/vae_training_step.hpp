#pragma once
// One data-parallel VAE step. Every term of the batch ELBO and of its gradient is a sum over the
// batch rows (docs/math/vae.md, "Data parallelism"), so:
//   - each rank evaluates the batch rows it owns (RowPartition), with the whole batch's weights
//     w_lik = w_KL = N/B and noise keyed by the rows' global ids (the same draw on any rank count);
//   - one reduction sums the gradient: an allreduce, or for sharded Adam (summed_slices) a
//     reduce-scatter leaving each rank the sum of its slice; one allreduce of three scalars sums
//     the value, the weighted log-likelihood and the KL.
// The result equals the serial VaeElbo of the batch to rounding, whatever the rank count.
// Communication per step: the parameter count plus three values, independent of N and B.
// With train.reproducible (VaeModel::reproducible_sums) the same bits at any rank count instead:
// the batch is cut into blocks of 64 consecutive positions (batch_block_of), whole blocks are
// assigned to ranks (batch_block_workers) and their rows sent there (one alltoallv of the data
// rows), each block's ELBO and gradient are evaluated on their own (products of the block's
// shape), and the blocks' partials are added exactly (parallel/reproducible_sum.hpp). Cost: the
// moved rows, three doubles per summed value, and one parameter vector per block held.
#include <cstdint>
#include <vector>

#include "gplvm/models/vae_model.hpp"

namespace gplvm {

class VaeTrainingStep final : public TrainingStep {
 public:
  // Collective: checks local_data (this rank's rows [partition.begin(rank), ...)) for shape and
  // non-finite values (InputError naming the global row, on every rank).
  VaeTrainingStep(const VaeModel& model, const Communicator& comm, const RowPartition& partition,
                  DataRef local_data);

  BatchTerms evaluate(const Vector& params, const std::vector<std::uint64_t>& batch_rows, StepKey key,
                      Vector& gradient, const std::vector<int>* summed_slices,
                      Float32Shadow* shadow) const override;

 private:
  // The batch rows this rank owns, in batch order, and their data.
  void gather_own_rows(const std::vector<std::uint64_t>& batch_rows) const;
  // train.reproducible: the blocks this rank works on, their partials summed exactly.
  BatchTerms evaluate_in_blocks(const Vector& params, const std::vector<std::uint64_t>& batch_rows,
                                StepKey key, Vector& gradient, const std::vector<int>* summed_slices) const;

  const VaeModel& model_;
  const Communicator& comm_;
  RowPartition partition_;
  DataRef local_;
  mutable std::vector<std::uint64_t> own_rows_;  // reused from step to step
  mutable RowMatrix own_data_;
};

}  // namespace gplvm

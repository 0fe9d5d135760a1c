#pragma once
// One data-parallel SAS / Bayesian SAS step (docs/architecture.md, "Data-parallel training"):
//   - every rank knows the batch (BatchSchedule) and which of its rows it owns (RowPartition);
//   - each rank works on a share of the batch rows: amortised models split the batch evenly
//     (batch_workers) or, for reproducible sums, in whole row blocks (batch_block_workers), rows
//     moving to their worker (one alltoallv); free latents are worked on by their owner, or, for
//     reproducible sums, formed by their owner and sent with the data to the block's worker, their
//     gradients coming back (exchange_batch_rows);
//   - workers compute the latents of their batch rows (encoder or free latents), one product per
//     row block;
//   - the active rows (position, latent sample, data) are allgathered: A x (1 + Q + D) values;
//   - every rank factorises K_AA + s2 I redundantly;
//   - each rank evaluates its own remainder rows, block by block; one reproducible sum
//     (parallel/reproducible_sum.hpp) adds the blocks' value, A x A adjoint, dX_A, kernel and
//     noise gradients and KL;
//   - workers back-propagate their rows through the encoder, one partial gradient per row block;
//     one reproducible sum adds them, or, for sharded Adam, leaves each rank the sum of its slice.
//     Free-latent gradients stay on their owner.
// With train.reproducible (SasModelConfig::reproducible_sums) the rows are assigned and summed in
// fixed blocks, exactly: amortised models give the same bits at any rank count
// (docs/reliability.md), amortised and free latents alike; otherwise whole shares are summed per
// rank, as fast as before.
// Communication per step is O(A (Q + D) + A^2 + #encoder parameters), independent of N.
#include <optional>
#include <vector>

#include "gplvm/models/sas_model.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

class DistributedSasStep {
 public:
  // local_data holds this rank's rows [partition.begin(rank), partition.begin(rank) + count).
  // Throws InputError (naming the global row, on every rank) if any row is not finite.
  DistributedSasStep(const SasModel& model, const Communicator& comm, const RowPartition& partition,
                     DataRef local_data);
  // The same with the rows held in fp32 (half the memory; for fp32 models).
  DistributedSasStep(const SasModel& model, const Communicator& comm, const RowPartition& partition,
                     DataRefF local_data);

  // Objective of the batch (same on every rank) and its gradient: the shared block identical on
  // every rank, the local block (free latents) for this rank's rows. With encoder_slices (one
  // count per rank over encoder_block(), as ShardedAdam::slice_counts gives them) the encoder
  // gradient is reduce-scattered instead: summed only in this rank's slice of the block, the rest
  // of the block holding this rank's own terms.
  // fp32 models may pass an fp32 shadow of encoder_block() (what Trainer does, with ShardedAdam):
  // the encoder then runs on the shadow's weights and leaves its gradient there, and `gradient`'s
  // encoder block is not written (SasModel::latents_forward). fp64 models take no shadow.
  BatchTerms evaluate(const Vector& params, const std::vector<std::uint64_t>& batch_rows, Index num_active,
                      StepKey key, Vector& gradient, const std::vector<int>* encoder_slices = nullptr,
                      Float32Shadow* shadow = nullptr) const;

  // The parameters that ranks sum over their rows: the encoders (empty for free latents).
  IndexRange encoder_block() const;

 private:
  // The batch rows this rank works on.
  struct WorkRows {
    std::vector<Index> positions;      // positions in the batch, ascending
    std::vector<std::uint64_t> rows;   // global row ids
    std::vector<int> active_per_rank;  // every rank's number of active rows (known to all ranks)
    // The rows above, in runs that lie in one row block of the batch (batch_block_of): whole
    // blocks for amortised models, the part of a block this rank owns for free latents.
    std::vector<Index> block_rows;
  };
  // Free latents under reproducible sums: their owners form them (owned_rows, in position order)
  // and send them to the block workers, who send the gradients with respect to them back.
  struct FreeLatentRoute {
    std::vector<int> owner, worker;  // per batch position
    std::vector<std::uint64_t> owned_rows;
  };
  FreeLatentRoute free_latent_route(const std::vector<std::uint64_t>& batch_rows,
                                    const std::vector<int>& worker, Index num_active) const;
  WorkRows work_rows(const std::vector<std::uint64_t>& batch_rows, const std::vector<int>& worker,
                     Index num_active) const;
  // Their data rows, in Scalar: this rank's own from its block, the others sent by their owners.
  template <typename Scalar>
  RowMatrixT<Scalar> work_data(const std::vector<std::uint64_t>& batch_rows, const std::vector<int>& worker,
                               const WorkRows& work) const;
  template <typename Scalar>
  RowMatrixT<Scalar> local_rows(const std::vector<std::uint64_t>& rows) const;
  // Copies this rank's data row with global id `row` into dst, in dst's precision.
  template <typename Row>
  void copy_local_row(std::uint64_t row, Row&& dst) const;
  template <typename Scalar>
  BatchTerms evaluate_in(const Vector& params, const WorkRows& own, const RowMatrixT<Scalar>& data,
                         Index num_active, Index batch_size, StepKey key, Vector& gradient,
                         const std::vector<int>* encoder_slices, Float32Shadow* shadow,
                         const FreeLatentRoute* route) const;
  // The latents of this rank's work rows: formed here, or by their owners along the route.
  template <typename Scalar>
  SasModel::LatentBatch work_latents(const Vector& params, const WorkRows& own,
                                     const RowMatrixT<Scalar>& data, StepKey key, Float32Shadow* shadow,
                                     const FreeLatentRoute* route, SasModel::LatentBatch& owned) const;

  const SasModel& model_;
  const Communicator& comm_;
  RowPartition partition_;
  template <typename Scalar>
  void validate_local_data(const DataRefT<Scalar>& local_data) const;

  std::optional<DataRef> local_f64_;  // exactly one of the two is set
  std::optional<DataRefF> local_f32_;
};

}  // namespace gplvm

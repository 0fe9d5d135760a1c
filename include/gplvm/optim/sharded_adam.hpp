#pragma once
// Adam for data-parallel training with its work split over the ranks (ZeRO stage 1): one block
// of the parameter vector (the encoder weights) is held identically on every rank, its gradient
// arrives reduce-scattered (each rank holds the summed gradient of its own slice only), each rank
// updates only its slice of the block and of the moments, and the updated slices are allgathered.
// Elements outside the block (the hyperparameters every rank computes identically, and a rank's
// own free latents) are updated by every rank from its own gradient.
//
// Compared with an allreduce and Adam on the whole vector on every rank: Adam's pass over the block
// (memory-bound: parameters, gradient and two moments) is divided by the rank count. The bytes
// moved are those of an allreduce (a reduce-scatter plus an allgather is what a bandwidth-optimal
// allreduce does) for an fp64 gradient, and 1.5 times them for an fp32 one, whose slices come in
// as floats and go out as doubles. Each element gets Adam's update to rounding (Adam::ascend_ranges).
#include <vector>

#include "gplvm/optim/adam.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

class ShardedAdam {
 public:
  ShardedAdam(const Communicator& comm, Index num_parameters, IndexRange block, AdamOptions options);

  // Elements of the block owned by each rank, in rank order (as reduce_scatter_sum takes them).
  const std::vector<int>& slice_counts() const noexcept { return counts_; }
  IndexRange own_slice() const noexcept { return own_; }

  // Collective. gradient must hold the summed gradient in this rank's slice of the block and this
  // rank's gradient outside the block; its other elements are not read.
  // gradient_scale multiplies the whole gradient (clipping: clip_norm / gradient_norm).
  void ascend(VectorRef params, const ConstVectorRef& objective_gradient, double gradient_scale = 1.0);
  // The same with the block's gradient taken from an fp32 shadow of the block (as a step left it:
  // gradient_ready, summed in this rank's slice) instead of objective_gradient, which is then not
  // read inside the block. Leaves the shadow's weights equal to float(params[block]) on every rank
  // (weights_current) and its gradient consumed (gradient_ready cleared).
  void ascend(VectorRef params, const ConstVectorRef& objective_gradient, Float32Shadow& shadow,
              double gradient_scale = 1.0);

  // Collective: the 2-norm of the whole gradient as ascend() reads it, the same value on every rank.
  // [0, replicated_end) outside the block is replicated (every rank holds the same values: counted
  // once), this rank's slice of the block is its summed gradient (read from the shadow where one
  // is given), and [replicated_end, n) is this rank's own (free latents of its rows). The ranks'
  // partial sums of squares are gathered and added in rank order, so every rank gets the same bits.
  double gradient_norm(const ConstVectorRef& objective_gradient, Index replicated_end,
                       const Float32Shadow* shadow = nullptr) const;

  void set_learning_rate(double learning_rate) { adam_.set_learning_rate(learning_rate); }

  // Collective: the full state, the block's moments gathered from their owners.
  AdamState state() const;
  // The same full state on every rank (as state() returns it, or as read from a checkpoint).
  void set_state(AdamState state) { adam_.set_state(std::move(state)); }

 private:
  // Collective: every rank's updated slice of the block into params (phase adam_allgather).
  void gather_updated_slices(VectorRef params) const;

  const Communicator& comm_;
  IndexRange block_;
  std::vector<int> counts_;
  IndexRange own_;
  std::vector<IndexRange> updated_;  // the ranges this rank updates: outside the block, own slice
  Adam adam_;
};

}  // namespace gplvm

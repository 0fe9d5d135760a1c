#include "gplvm/optim/sharded_adam.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/phase_clock.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {

ShardedAdam::ShardedAdam(const Communicator& comm, Index num_parameters, IndexRange block,
                         AdamOptions options)
    : comm_(comm), block_(block), adam_(num_parameters, options) {
  require(block.begin >= 0 && block.begin <= block.end && block.end <= num_parameters,
          "sharded Adam: block outside the parameter vector",
          {"", "block",
           std::to_string(block.begin) + ".." + std::to_string(block.end) + " of " +
               std::to_string(num_parameters)});
  // The block split as the rows of a data set are (RowPartition): contiguous, sizes within one.
  const RowPartition slices(static_cast<std::uint64_t>(block.end - block.begin), comm.size());
  for (int r = 0; r < comm.size(); ++r) counts_.push_back(static_cast<int>(slices.count(r)));
  const Index first = block.begin + static_cast<Index>(slices.begin(comm.rank()));
  own_ = {first, first + counts_[comm.rank()]};
  updated_ = {{0, block.begin}, own_, {block.end, num_parameters}};
}

void ShardedAdam::ascend(VectorRef params, const ConstVectorRef& objective_gradient, double gradient_scale) {
  {
    const ScopedPhase phase(StepPhase::adam);
    adam_.ascend_ranges(params, objective_gradient, updated_, nullptr, gradient_scale);
  }
  gather_updated_slices(params);
}

void ShardedAdam::ascend(VectorRef params, const ConstVectorRef& objective_gradient, Float32Shadow& shadow,
                         double gradient_scale) {
  shadow.require_block(block_);
  const ScopedPhase phase(StepPhase::adam);
  adam_.ascend_ranges(params, objective_gradient, updated_, &shadow, gradient_scale);
  gather_updated_slices(params);
  // This rank wrote float weights for its own slice; the others' slices are converted from what
  // was just gathered (cheaper than a second, fp32 allgather).
  shadow.convert_weights(params, {block_.begin, own_.begin});
  shadow.convert_weights(params, {own_.end, block_.end});
  shadow.weights_current = true;
  shadow.gradient_ready = false;
}

double ShardedAdam::gradient_norm(const ConstVectorRef& g, Index replicated_end,
                                  const Float32Shadow* shadow) const {
  const Index n = g.size();
  require(block_.end <= replicated_end && replicated_end <= n,
          "gradient norm: the replicated prefix must hold the sharded block and fit the gradient",
          {"", "replicated_end", std::to_string(replicated_end)});
  const ScopedPhase phase(StepPhase::gradient_norm);
  const double replicated =
      g.head(block_.begin).squaredNorm() + g.segment(block_.end, replicated_end - block_.end).squaredNorm();
  double own = g.tail(n - replicated_end).squaredNorm();
  if (shadow && shadow->gradient_ready)
    own += shadow->gradient.segment(own_.begin - block_.begin, own_.end - own_.begin)
               .cast<double>()
               .squaredNorm();
  else
    own += g.segment(own_.begin, own_.end - own_.begin).squaredNorm();
  std::vector<double> partials(comm_.size(), 0.0);
  partials[comm_.rank()] = own;
  {
    const ScopedPhase gather(StepPhase::norm_gather);
    comm_.allgather_slices(partials.data(), std::vector<int>(comm_.size(), 1));
  }
  double total = replicated;
  for (const double p : partials) total += p;
  return std::sqrt(total);
}

void ShardedAdam::gather_updated_slices(VectorRef params) const {
  const ScopedPhase phase(StepPhase::adam_allgather);
  comm_.allgather_slices(params.data() + block_.begin, counts_);
}

AdamState ShardedAdam::state() const {
  AdamState s = adam_.state();
  comm_.allgather_slices(s.first_moment.data() + block_.begin, counts_);
  comm_.allgather_slices(s.second_moment.data() + block_.begin, counts_);
  return s;
}

}  // namespace gplvm

#include "gplvm/optim/sharded_adam.hpp"

#include <string>

#include "gplvm/core/error.hpp"
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

void ShardedAdam::ascend(VectorRef params, const ConstVectorRef& objective_gradient) {
  adam_.ascend_ranges(params, objective_gradient, updated_);
  comm_.allgather_slices(params.data() + block_.begin, counts_);
}

void ShardedAdam::ascend(VectorRef params, const ConstVectorRef& objective_gradient, Float32Shadow& shadow) {
  shadow.require_block(block_);
  adam_.ascend_ranges(params, objective_gradient, updated_, &shadow);
  comm_.allgather_slices(params.data() + block_.begin, counts_);
  // This rank wrote float weights for its own slice; the others' slices are converted from what
  // was just gathered (cheaper than a second, fp32 allgather).
  shadow.convert_weights(params, {block_.begin, own_.begin});
  shadow.convert_weights(params, {own_.end, block_.end});
  shadow.weights_current = true;
  shadow.gradient_ready = false;
}

AdamState ShardedAdam::state() const {
  AdamState s = adam_.state();
  comm_.allgather_slices(s.first_moment.data() + block_.begin, counts_);
  comm_.allgather_slices(s.second_moment.data() + block_.begin, counts_);
  return s;
}

}  // namespace gplvm

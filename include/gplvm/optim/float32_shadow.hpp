#pragma once
// An fp32 shadow of one block of an fp64 parameter vector: float(params[block]) and the block's
// gradient as the step computed it, in float.
//
// fp32 training keeps its master parameters in fp64 (docs/precision.md) but runs the encoder in
// fp32. Without a shadow each step makes two passes over the encoder block that do no arithmetic:
// it converts the fp64 weights to float before the forward pass, and casts the float gradient up
// into the fp64 gradient vector for Adam. With a shadow the step leaves its float gradient here,
// Adam reads it directly and writes float(updated weight) while each chunk is in L1, and the next
// step uses those floats. The values are the same bit for bit: float(p) and double(g) are exact
// functions of their inputs wherever they are computed.
//
// Contract: while `weights_current` is true, weights == float(params[block]). Adam keeps it so;
// anyone who changes params another way clears it (the next step then converts once).
#include "gplvm/core/types.hpp"

namespace gplvm {

struct Float32Shadow {
  explicit Float32Shadow(IndexRange block_range)
      : block(block_range),
        weights(block_range.end - block_range.begin),
        gradient(block_range.end - block_range.begin) {}

  Index size() const noexcept { return block.end - block.begin; }
  // weights[part] = float(params[part]) for a part of the block (params: the whole vector); the
  // one place that converts, split over the rank's threads.
  void convert_weights(const ConstVectorRef& params, IndexRange part);
  // Throws InputError unless the shadow is of exactly `expected`, with buffers of its size.
  void require_block(IndexRange expected) const;

  IndexRange block;              // elements [block.begin, block.end) of the parameter vector
  VectorT<float> weights;        // float(params[block]) while weights_current
  VectorT<float> gradient;       // the block's objective gradient, written by a step
  bool weights_current = false;  // set by whoever writes weights from params; cleared on other changes
  bool gradient_ready = false;  // set by the step that wrote gradient; cleared by the Adam step that reads it
};

}  // namespace gplvm

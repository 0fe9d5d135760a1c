#include "gplvm/optim/float32_shadow.hpp"

#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/threads.hpp"

namespace gplvm {

void Float32Shadow::convert_weights(const ConstVectorRef& params, IndexRange part) {
  constexpr Index kElementsPerShareUnit = 4096;  // a thread's share is a multiple of this
  for_each_thread_share(part.end - part.begin, kElementsPerShareUnit, [&](Index i0, Index i1) {
    weights.segment(part.begin - block.begin + i0, i1 - i0) =
        params.segment(part.begin + i0, i1 - i0).cast<float>();
  });
}

// Called several times per training step: the message is built only when the check fails (a
// require() with std::to_string arguments would allocate it on every call).
void Float32Shadow::require_block(IndexRange expected) const {
  if (block.begin == expected.begin && block.end == expected.end && weights.size() == size() &&
      gradient.size() == size())
    return;
  throw InputError("fp32 shadow does not cover block " + std::to_string(expected.begin) + ".." +
                       std::to_string(expected.end) + " with buffers of its size",
                   {"", "shadow", std::to_string(block.begin) + ".." + std::to_string(block.end)});
}

}  // namespace gplvm

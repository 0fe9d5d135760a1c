#pragma once
// Adam (Kingma & Ba), with PyTorch's update and defaults: beta = (0.9, 0.999), eps = 1e-8.
// Operates on one flat parameter vector; its state is exposed for checkpoints.
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/optim/float32_shadow.hpp"

namespace gplvm {

struct AdamOptions {
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
};

// InputError naming the first invalid option (adam.learning_rate, adam.beta1, ...).
void validate_adam_options(const AdamOptions& options);

struct AdamState {
  Vector first_moment;
  Vector second_moment;
  std::int64_t steps = 0;
};

class Adam {
 public:
  Adam(Index num_parameters, AdamOptions options);

  // One minimisation step: params -= lr * m_hat / (sqrt(v_hat) + eps), gradient of the loss.
  void descend(VectorRef params, const ConstVectorRef& loss_gradient);
  // One maximisation step on an objective (what every gplvm objective is): descend on -gradient.
  void ascend(VectorRef params, const ConstVectorRef& objective_gradient);
  // One maximisation step that updates only the given ranges of params and of the moments (the
  // step counter advances once): for a vector whose other elements another process updates. Each
  // updated element gets ascend()'s update to rounding: where a range ends can move an element
  // between the loop's SIMD and scalar paths, which may round its last bit differently.
  // With a shadow (whose gradient_ready must be set), elements inside shadow->block take their
  // gradient from shadow->gradient (objective_gradient is not read there) and, once updated, are
  // also written to shadow->weights as float; the shadow's flags are left to the caller.
  // gradient_scale multiplies the gradient before it enters the moments (gradient-norm clipping).
  void ascend_ranges(VectorRef params, const ConstVectorRef& objective_gradient,
                     const std::vector<IndexRange>& ranges, Float32Shadow* shadow = nullptr,
                     double gradient_scale = 1.0);

  // The rate of the following steps (a schedule sets it before each step); finite and >= 0.
  void set_learning_rate(double learning_rate);

  const AdamOptions& options() const noexcept { return options_; }
  const AdamState& state() const noexcept { return state_; }
  void set_state(AdamState state);  // throws InputError on a size mismatch

 private:
  // Updates ranges [first, last); they are not checked here.
  // sign: -1 ascends, +1 descends, times the gradient's scale.
  void step(VectorRef params, const ConstVectorRef& gradient, double sign, const IndexRange* first,
            const IndexRange* last, Float32Shadow* shadow = nullptr);

  AdamOptions options_;
  AdamState state_;
};

}  // namespace gplvm

#pragma once
// Adam (Kingma & Ba), with PyTorch's update and defaults: beta = (0.9, 0.999), eps = 1e-8.
// Operates on one flat parameter vector; its state is exposed for checkpoints.
#include "gplvm/core/types.hpp"

namespace gplvm {

struct AdamOptions {
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
};

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

  const AdamOptions& options() const noexcept { return options_; }
  const AdamState& state() const noexcept { return state_; }
  void set_state(AdamState state);  // throws InputError on a size mismatch

 private:
  void step(VectorRef params, const ConstVectorRef& gradient, double sign);

  AdamOptions options_;
  AdamState state_;
};

}  // namespace gplvm

#pragma once
// Draws D independent output columns from the GP prior at latents X: y_d ~ N(0, k(X, X) + s2 I).
// Used by the synthetic-data generator and by tests that need data the model is right for.
#include "gplvm/core/counter_rng.hpp"
#include "gplvm/model/kernel.hpp"

namespace gplvm {

RowMatrix sample_gp_outputs(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X,
                            Index num_outputs, const CounterRng& rng, std::uint64_t stream);

}  // namespace gplvm

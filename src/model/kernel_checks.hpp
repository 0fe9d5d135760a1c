#pragma once
// Argument checks the kernels share. They run on every kernel evaluation of a training step, so the
// messages are built only when a check fails.
#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/core/types.hpp"

namespace gplvm::kernel_checks {

inline void require_positive_finite(double v, const char* key) {
  if (!(std::isfinite(v) && v > 0.0))
    throw InputError("kernel hyperparameter must be positive and finite", {"", key, std::to_string(v)});
}

inline void require_input_dim(const ConstMatrixRef& X, Index q, const char* which) {
  if (X.cols() != q)
    throw InputError(std::string("kernel input ") + which + " has the wrong number of latent dimensions",
                     {"", "latent_dim", std::to_string(X.cols())});
}

// A kernel over Q >= 1 latent dimensions (`what` names the kernel in the message).
inline void require_latent_dim(Index q, const char* what) {
  if (q < 1)
    throw InputError(std::string(what) + " kernel needs at least one latent dimension (Q >= 1)",
                     {"", "latent_dim", std::to_string(q)});
}

// The unconstrained hyperparameters a kernel is given back: the right count, all finite.
inline void require_hyperparameters(const ConstVectorRef& values, Index expected, const char* what) {
  if (values.size() != expected)
    throw InputError(std::string("wrong number of ") + what + " hyperparameters",
                     {"", "kernel", std::to_string(values.size())});
  if (!values.allFinite())
    throw InputError(std::string(what) + " hyperparameters must be finite", {"", "kernel", "non-finite"});
}

}  // namespace gplvm::kernel_checks

#pragma once
// What the two ProbDR Wishart objectives share (docs/math/probdr.md): the noise setting of their
// closed-form optima and the shape of an evaluation.
//
// Both objectives are f = KL(W(M_hat, d) || W(g(X), d)) less its X-free part, for a model moment
// g(X) with one isotropic noise parameter: sigma^2 in the covariance model
// (g = X X^T + sigma^2 I), beta in the precision model (g = (X X^T + beta I)^{-1}).
#include "gplvm/core/types.hpp"

namespace gplvm {

// The configuration key that fixes the noise (0: estimated); errors about the noise name it.
inline constexpr const char* kFixedNoiseKey = "probdr.fixed_noise";

// The noise of a closed-form fit: its maximum-likelihood estimate, or a value held fixed (e.g.
// sigma^2 -> 0 to reproduce classical MDS coordinates exactly).
struct WishartNoise {
  bool estimate = true;
  double fixed_value = 0.0;  // used when estimate is false; must be positive

  static WishartNoise estimated() { return {}; }
  static WishartNoise fixed(double value) { return {false, value}; }
};

// One evaluation of a Wishart objective at (X, noise), on this rank.
struct WishartEvaluation {
  double value = 0.0;        // f, the same on every rank
  Matrix d_latents;          // df/dX, this rank's rows (empty when no gradient was asked for)
  double d_noise = 0.0;      // df/d(sigma^2) or df/d(beta), the same on every rank
  double d_log_noise = 0.0;  // the same with respect to the log of the noise: noise * d_noise
};

}  // namespace gplvm

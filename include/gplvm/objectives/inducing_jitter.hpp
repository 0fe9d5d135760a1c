#pragma once
// The jitter every sparse bound and inducing-point predictor adds to K_ZZ.
//
// With many inducing inputs in a low-dimensional latent space (M = 100 at Q = 2 is typical) K_ZZ is
// numerically singular: its smallest eigenvalues sit at rounding level. Whitening Psi2 by K_ZZ's
// factor (Phi = L^{-1} Psi2 L^{-T}) then multiplies Psi2's rounding errors by 1 / lambda_min(K_ZZ).
// For the sparse GPLVM Psi2 = K_ZX K_XZ and Phi is a Gram matrix whatever the rounding, but the
// Bayesian GPLVM's Psi2 is a sum of expectations, and its amplified errors made I + Phi / s2
// indefinite beyond any jitter the Cholesky helper may add (M = 100, Q = 2, N = 2,000). The
// bounds therefore use K_ZZ + eps mean(diag K_ZZ) I, eps = 1e-6 (the constant GPflow and GPy add
// to K_ZZ, here relative to the kernel's scale), which bounds 1 / lambda_min by 10^6 / mean(diag):
// the model of inducing outputs with a little independent noise, still a lower bound on the
// marginal likelihood of that model, and differentiated exactly (the adjoint below).
#include "gplvm/core/types.hpp"

namespace gplvm {

inline constexpr double kInducingRelativeJitter = 1e-6;

// The jitter added to K's diagonal: relative_jitter * mean(diag K) (0 for an empty K).
double inducing_jitter(const Matrix& K, double relative_jitter);

// K + inducing_jitter(K, relative_jitter) * I.
Matrix jittered_inducing_kernel(Matrix K, double relative_jitter);

// The adjoint of the map above: given dF/dK_eff in G, G becomes dF/dK = G + relative_jitter / M * tr(G) I.
void add_inducing_jitter_adjoint(Matrix& G, double relative_jitter);

}  // namespace gplvm

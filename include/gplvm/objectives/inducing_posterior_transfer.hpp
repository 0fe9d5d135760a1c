#pragma once
// q(u) carried to new inducing inputs (docs/math/sparse_gplvm.md, "q(u) at redrawn inducing inputs").
//
// When the inducing inputs move from Z to Z' without a gradient step (the active set's redraw), the
// explicit q(u) at Z says nothing about the new rows by position. What it does imply is a
// posterior over the whole function, q(f) = integral p(f | u) q(u) du; its law at Z' is
//
//   q(u') = N(A m, K'' - A (K - S) A^T),   A = K_{Z'Z} K^{-1},
//
// with K = K_ZZ and K'' = K_{Z'Z'} jittered as the bounds jitter K_ZZ (inducing_jitter.hpp). The
// jitter is read as independent noise on each inducing value, attached to its input: a row of Z'
// equal to a row of Z (bit for bit) shares that noise, so its cross-covariance includes the jitter.
// Then a Z' made of distinct rows of Z, in any order, receives exactly those rows' marginal of q(u),
// and a redraw that changes nothing changes nothing.
#include "gplvm/core/types.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/objectives/inducing_jitter.hpp"
#include "gplvm/objectives/uncollapsed_bound.hpp"

namespace gplvm {

// q(u') at new_inputs (M' x ambient) implied by q at inputs (M x ambient) under `kernel`.
// Throws NumericalError (naming the matrix) if K or the new covariance stays indefinite through the
// Cholesky helper's jitter escalation.
InducingPosterior transferred_inducing_posterior(const InducingPosterior& q, const Kernel& kernel,
                                                 const ConstMatrixRef& inputs,
                                                 const ConstMatrixRef& new_inputs,
                                                 double relative_jitter = kInducingRelativeJitter);

}  // namespace gplvm

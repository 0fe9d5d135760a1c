#pragma once
// K = X X^T + s I_n (n x n) through its l x l capacitance A = s I_l + X^T X, never forming K: what
// both Wishart objectives reduce the latents to (docs/math/probdr.md, "Never n x n").
//
//   |K| = s^(n - l) |A|,   K^{-1} = (I - X A^{-1} X^T) / s,   K^{-1} X = X A^{-1},
//   tr K^{-1} = (n - tr(A^{-1} X^T X)) / s.
#include "gplvm/core/types.hpp"

namespace gplvm {

struct LowRankPlusNoise {
  Matrix a_inverse;            // A^{-1}, l x l, both triangles
  double log_determinant = 0;  // log|K|
  double trace_inverse = 0;    // tr K^{-1}
};

// From the global Gram X^T X (l x l), the noise s > 0 and n. `what` names the matrix A in the
// Cholesky helper's messages.
LowRankPlusNoise low_rank_plus_noise(const Matrix& gram, double noise, Index num_rows, const char* what);

// InputError naming `key` unless the noise is positive and finite.
void require_positive_noise(double noise, const char* key);

}  // namespace gplvm

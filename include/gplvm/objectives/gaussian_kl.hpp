#pragma once
// KL[ N(mu_n, diag v_n) || N(0, I_Q) ] summed over rows n (spec sas.md 1.4):
//   KL_n = -1/2 sum_q (1 + log v_nq - mu_nq^2 - v_nq)
#include "gplvm/core/types.hpp"

namespace gplvm {

double gaussian_kl(const ConstMatrixRef& mean, const ConstMatrixRef& variance);

// Adds scale * dKL/dmean (= scale * mean) and scale * dKL/dvariance (= scale/2 (1 - 1/v)).
void gaussian_kl_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance, double scale,
                          MatrixRef d_mean, MatrixRef d_variance);

}  // namespace gplvm

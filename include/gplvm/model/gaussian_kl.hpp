#pragma once
// KL[ N(mu_n, diag v_n) || N(0, I_Q) ] summed over rows n (docs/math/bayesian_sas.md):
//   KL_n = -1/2 sum_q (1 + log v_nq - mu_nq^2 - v_nq)
#include "gplvm/core/types.hpp"

namespace gplvm {

// x = mu + sqrt(v) o eps: a sample of N(mu, diag v) from standard normal eps.
Matrix reparameterise(const ConstMatrixRef& mean, const ConstMatrixRef& variance, const ConstMatrixRef& eps);
// Adds dL/dmu = dL/dx and dL/dv = dL/dx o eps / (2 sqrt(v)).
void reparameterise_backward(const ConstMatrixRef& d_sample, const ConstMatrixRef& variance,
                             const ConstMatrixRef& eps, MatrixRef d_mean, MatrixRef d_variance);

double gaussian_kl(const ConstMatrixRef& mean, const ConstMatrixRef& variance);

// Adds scale * dKL/dmean (= scale * mean) and scale * dKL/dvariance (= scale/2 (1 - 1/v)).
void gaussian_kl_backward(const ConstMatrixRef& mean, const ConstMatrixRef& variance, double scale,
                          MatrixRef d_mean, MatrixRef d_variance);

}  // namespace gplvm

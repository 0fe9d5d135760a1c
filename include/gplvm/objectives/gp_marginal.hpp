#pragma once
// The Gaussian marginal likelihood of D independent GP outputs on one point set:
//   log p(Y | X) = sum_d log N(y_d | 0, K + s2 I),  K = k(X, X),  s2 = noise variance.
// It is the exact GPLVM objective on all N points and the SAS active term on the A active points,
// so both are built from this one piece: factorise, evaluate, form the adjoint, back-propagate.
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/linalg/cholesky.hpp"
#include "gplvm/model/kernel.hpp"

namespace gplvm {

// Value and gradients of a GP objective with respect to latents, kernel and log noise variance.
struct GpGradient {
  double value = 0.0;
  Matrix d_latents;        // dL/dX, one row per point
  Vector d_kernel;         // dL/d(kernel hyperparameters), in the kernel's parametrisation
  double d_log_noise = 0;  // dL/dlog(s2)
};

struct GpMarginal {
  Matrix kernel_block;    // k(X, X), without noise (the back-propagation needs it)
  CholeskyFactor factor;  // of k(X, X) + s2 I (plus any jitter the helper had to add)
  Matrix whitened_data;   // L^{-1} Y, N x D: well scaled (||.||^2 is the data-fit term)
  Matrix alpha;           // (K + s2 I)^{-1} Y = L^{-T} whitened_data, N x D
  double log_likelihood = 0;
};

// k(X, X) and the Cholesky factor of k(X, X) + s2 I, inputs checked: the first half of gp_marginal.
struct GpFactor {
  Matrix kernel_block;
  CholeskyFactor factor;
};
GpFactor gp_factor(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X,
                   const std::string& what);

// -n d/2 log(2 pi) - d/2 log|K + s2 I| for d outputs: the log marginal likelihood less its data fit.
double gp_normaliser(const CholeskyFactor& factor, Index d);

// Factorises and evaluates. Solves against Y (N x D); never forms Y Y^T. `what` names the matrix
// in Cholesky warnings and errors (e.g. "K_NN + s2 I").
GpMarginal gp_marginal(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X, const DataRef& Y,
                       const std::string& what);

// W = dL/d(K + s2 I) = 1/2 (alpha alpha^T - D (K + s2 I)^{-1}), given the explicit inverse.
Matrix gp_marginal_adjoint(const GpMarginal& marginal, const Matrix& inverse);

// Pushes a symmetric adjoint W = dL/d(k(X, X) + s2 I) into latents, kernel and log noise (adds).
void backprop_symmetric_block(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X,
                              const Matrix& kernel_block, const Matrix& W, GpGradient& gradient);

// The exact GPLVM log marginal likelihood and, if requested, its gradients (dense, serial: the
// small-N reference every other engine is tested against).
GpGradient exact_log_marginal_likelihood(const Kernel& kernel, double noise_variance, const ConstMatrixRef& X,
                                         const DataRef& Y, bool with_gradient = true);

}  // namespace gplvm

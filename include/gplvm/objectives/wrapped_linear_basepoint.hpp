#pragma once
// The wrapped GPLVM log-likelihood on the sphere with the linear basepoint m(x) = Exp_mu0(B0 A x)
// (model/sphere_linear_basepoint.hpp, docs/math/wrapped_gplvm.md):
//   L(X, A, theta, s2) = log N(V | 0, I_d (x) (k_theta(X, X) + s2 I)),  V_j = V(x_j, p_j),
// and its full gradient. With alpha = (K + s2 I)^{-1} V, dL/dV = -alpha, so besides the kernel's
// part (the exact GPLVM's adjoint through K) each latent gets -A^T J_j^T alpha_j and the map
// -sum_j J_j^T alpha_j x_j^T, J_j = dV_j/du at u = A x_j (the D_m Log_m(p) term of the gradient and
// the derivative of the transported frame). Serial and dense: wrapped data sets are small.
#include "gplvm/core/types.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/model/sphere_linear_basepoint.hpp"
#include "gplvm/objectives/gp_marginal.hpp"

namespace gplvm {

struct LinearBasepointGradient {
  GpGradient gp;  // value, dL/dX (both terms), dL/dhyperparameters, dL/dlog s2
  Matrix d_map;   // dL/dA, n x Q
};

// The tangent coordinates V (N x n) of the points (N x (n+1)) at their latents X (N x Q).
RowMatrix linear_basepoint_coordinates(const SphereLinearBasepoint& basepoint, const ConstMatrixRef& X,
                                       const DataRef& points);

LinearBasepointGradient wrapped_linear_basepoint_lml(const Kernel& kernel, double noise_variance,
                                                     const ConstMatrixRef& X, const DataRef& points,
                                                     const SphereLinearBasepoint& basepoint,
                                                     bool with_gradient = true);

}  // namespace gplvm

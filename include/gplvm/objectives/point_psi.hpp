#pragma once
// Psi-statistics of point latents: the expectations of Kernel::psi_statistics under a point mass
// at x_n, so the sparse GPLVM shares every piece of the Bayesian GPLVM's code downstream:
//   psi0 = sum_n k(x_n, x_n),  psi1 = K_XZ (N x M),  psi2 = K_XZ^T K_XZ (M x M)
// built from Kernel::cross and Kernel::diagonal, and differentiated through their adjoints.
#include "gplvm/core/types.hpp"
#include "gplvm/model/kernel.hpp"

namespace gplvm {

void point_psi_statistics(const Kernel& kernel, const ConstMatrixRef& X, const ConstMatrixRef& Z,
                          PsiStatistics& out);

// Adjoint of point_psi_statistics(): ADDS dL/dX to *dX and dL/dZ to *dZ (either may be null) and
// dL/dhyperparameters to d_hyper. d_psi2 must be symmetric. `value` is what
// point_psi_statistics() returned.
void point_psi_backward(const Kernel& kernel, const ConstMatrixRef& X, const ConstMatrixRef& Z,
                        const PsiStatistics& value, double d_psi0, const ConstMatrixRef& d_psi1,
                        const ConstMatrixRef& d_psi2, Matrix* dX, Matrix* dZ, VectorRef d_hyper);

}  // namespace gplvm

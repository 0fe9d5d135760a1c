#pragma once
// The collapsed variational bound of the sparse GPLVM (Titsias 2009) and of the Bayesian GPLVM
// (Titsias & Lawrence 2010), from the full-data statistics (docs/math/sparse_gplvm.md, section 2):
//
//   F = -N D/2 log(2 pi s2) - D/2 log|B| - ||Y||^2/(2 s2) + ||L_B^{-1} L^{-1} P||^2/(2 s2^2)
//       - D/(2 s2) (psi0 - tr Phi) - KL
//
// with K_ZZ = L L^T, Phi = L^{-1} Psi2 L^{-T}, B = I + Phi/s2 = L_B L_B^T and s2 the noise
// variance. The whitened B (eigenvalues >= 1) is factorised instead of s2 K_ZZ + Psi2, and every
// K_ZZ^{-1} is a triangular solve with L, never an explicit inverse.
//
// Evaluated redundantly on every rank after the statistics' allreduce; nothing in the result
// needs further communication. The adjoints with respect to the statistics go back to each rank's
// rows (sparse_gplvm.hpp); dF/dK_ZZ goes to Z and the kernel through Kernel::cross_backward.
#include "gplvm/core/types.hpp"
#include "gplvm/linalg/cholesky.hpp"
#include "gplvm/objectives/inducing_jitter.hpp"
#include "gplvm/objectives/sparse_statistics.hpp"

namespace gplvm {

// K_ZZ's factor and the whitened statistics both bounds are built from.
struct WhitenedStatistics {
  CholeskyFactor kernel_factor;  // L L^T = K_ZZ + the relative jitter (inducing_jitter.hpp), plus any
                                 // jitter the Cholesky helper had to add
  Matrix phi;                    // Phi = L^{-1} Psi2 L^{-T}, both triangles
  Matrix psi1_data;              // c = L^{-1} P, M x D
};
WhitenedStatistics whiten_statistics(const SparseStatistics& statistics, const Matrix& inducing_kernel,
                                     double relative_jitter = kInducingRelativeJitter);

// G = L^{-T} H L^{-1} for symmetric H: maps a whitened-frame adjoint back to an M x M one.
Matrix unwhiten_adjoint(const CholeskyFactor& kernel_factor, Matrix H);

struct CollapsedBound {
  double value = 0.0;
  StatisticsAdjoint adjoint;  // dF/d(statistics); d_kl = -1
  Matrix d_inducing_kernel;   // dF/dK_ZZ, M x M, symmetric
  double d_log_noise = 0.0;   // dF/dlog s2
};

// Value and every adjoint. inducing_kernel is K_ZZ = k(Z, Z), without jitter: the bound adds
// relative_jitter (inducing_jitter.hpp; 0 for the model without it), and d_inducing_kernel is the
// derivative with respect to k(Z, Z).
CollapsedBound collapsed_bound(const SparseStatistics& statistics, const Matrix& inducing_kernel,
                               double noise_variance, double relative_jitter = kInducingRelativeJitter);

}  // namespace gplvm

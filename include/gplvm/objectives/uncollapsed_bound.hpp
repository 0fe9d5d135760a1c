#pragma once
// The uncollapsed (stochastic variational, Hensman et al. 2013) sparse GPLVM bound with an
// explicit q(u_d) = N(m_d, S) per output d, S = L_S L_S^T shared by the D outputs
// (docs/math/sparse_gplvm.md, section 4):
//
//   U = -N D/2 log(2 pi s2) - ||Y||^2/(2 s2) + tr(P^T K^{-1} m)/s2
//       - tr(K^{-1} Psi2 K^{-1} (m m^T + D S))/(2 s2) - D/(2 s2) (psi0 - tr(K^{-1} Psi2))
//       - KL(q(u) || p(u)) - KL(q(X) || p(X)),      K = K_ZZ
//
// U is LINEAR in the statistics (psi0, P, Psi2, ||Y||^2, N, KL of q(X)): evaluated at N/B times a
// batch's statistics it is an unbiased estimate of the full-data U, which is what makes it the
// minibatch objective; its adjoints are then N/B times the batch's (StatisticsAdjoint::scaled).
// At the optimal q(u) (optimal_inducing_posterior) it equals the collapsed bound; elsewhere it is
// below it.
#include "gplvm/core/types.hpp"
#include "gplvm/objectives/inducing_jitter.hpp"
#include "gplvm/objectives/sparse_statistics.hpp"

namespace gplvm {

// q(u): the means m (M x D, column d is m_d) and the lower-triangular factor L_S (M x M, positive
// diagonal; the strict upper triangle is ignored). The optimiser's coordinates are m, the strict
// lower triangle of L_S and log diag(L_S) (pack/unpack below).
struct InducingPosterior {
  Matrix mean;
  Matrix scale;

  Index num_inducing() const { return scale.rows(); }
  // M D + M (M + 1)/2: m column by column, then L_S's lower triangle column by column with its
  // diagonal entries as logarithms.
  static Index packed_size(Index num_inducing, Index data_dim);
  void pack(double* buffer) const;
  static InducingPosterior unpack(const double* buffer, Index num_inducing, Index data_dim);
};

struct UncollapsedBound {
  double value = 0.0;
  double inducing_kl = 0.0;   // KL(q(u) || p(u)) (the statistics' KL of q(X) is separate)
  StatisticsAdjoint adjoint;  // dU/d(statistics); d_kl = -1
  Matrix d_inducing_kernel;   // dU/dK_ZZ, M x M, symmetric
  double d_log_noise = 0.0;   // dU/dlog s2
  Matrix d_mean;              // dU/dm, M x D
  // dU/dL_S on the strict lower triangle, dU/dlog L_S(i, i) on the diagonal, zero above: the
  // gradient in the coordinates InducingPosterior::pack uses (pack_posterior_gradient).
  Matrix d_scale;

  // d_mean and d_scale in InducingPosterior::pack's layout.
  void pack_posterior_gradient(double* buffer) const;
};

// Value and every adjoint. inducing_kernel is K_ZZ = k(Z, Z), without jitter: the prior p(u) has
// covariance K_ZZ + the relative jitter (inducing_jitter.hpp; 0 for none), and d_inducing_kernel is
// the derivative with respect to k(Z, Z).
UncollapsedBound uncollapsed_bound(const SparseStatistics& statistics, const Matrix& inducing_kernel,
                                   double noise_variance, const InducingPosterior& q,
                                   double relative_jitter = kInducingRelativeJitter);

// The q(u) maximising U for the given (full-data) statistics:
//   S* = K (K + Psi2/s2)^{-1} K,  m* = K (K + Psi2/s2)^{-1} P / s2,
// at which U equals the collapsed bound.
InducingPosterior optimal_inducing_posterior(const SparseStatistics& statistics,
                                             const Matrix& inducing_kernel, double noise_variance,
                                             double relative_jitter = kInducingRelativeJitter);

}  // namespace gplvm

#pragma once
// Monte Carlo Psi-statistics of wrapped-normal latents (the Bayesian hGP-LVM,
// docs/math/lorentz.md): q(x_n) = N^w(mu_n, diag s_n) on a curved latent space, with L
// reparameterised samples per row x_n^(h) = Exp_mu(PT_{o->mu}(0, sqrt(s_n) * eps_n^(h))):
//
//   psi0 = sum_n (1/L) sum_h k(x_n^(h), x_n^(h))
//   Psi1 row n = (1/L) sum_h k(x_n^(h), Z)
//   Psi2 = sum_n (1/L) sum_h k(Z, x_n^(h)) k(x_n^(h), Z)
//   KL   = sum_n KL_n, per kl_mode (below)
//
// The same samples serve Psi1, Psi2 and the KL. The kernel sees only ambient coordinates, the
// space only (mu, s, eps), so this works for any LatentSpace whose KL is a Monte Carlo estimate.
// The result is an ordinary SparseStatistics: the bounds (collapsed, uncollapsed) and the
// distribution over ranks are those of the Euclidean sparse GPLVMs.
#include "gplvm/core/types.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/model/latent_space.hpp"
#include "gplvm/objectives/sparse_gplvm.hpp"
#include "gplvm/objectives/sparse_statistics.hpp"

namespace gplvm {

// kl_mode: exact is (1/L) sum_h [log q(x^(h)) - log p(x^(h))], the Monte Carlo estimate of
// KL(q || p) with p the standard wrapped normal at the origin, evaluated at the samples x^(h)
// (LatentSpace::kl_to_prior); paper is the hGP-LVM paper's eq. 17, which evaluates the prior at
// the sample's tangent vector at the origin instead, so that the Jacobian terms cancel and it
// becomes (1/L) sum_h sum_q [-1/2 log s_q - 1/2 eps_q^2 + 1/2 s_q eps_q^2], the Monte Carlo
// estimate of the tangent Gaussians' KL, independent of mu. exact_control_variate is exact plus
// (1/L) sum_h LatentSpace::kl_control_variate at the samples' noise (model.kl_estimator =
// "control_variate"): the same expectation, without the exact estimate's noise to first order.
enum class KlMode { exact, paper, exact_control_variate };
KlMode parse_kl_mode(const std::string& name);  // "exact" | "paper"; InputError naming model.kl_mode
// The KL mode of model.kl_mode and model.kl_estimator ("plain" | "control_variate", which needs the
// exact mode); InputError naming the key otherwise.
KlMode parse_kl_mode(const std::string& mode, const std::string& estimator);

// What the backward pass needs of the forward one. The L samples of the n rows are stacked into
// one (L n)-row block, sample h in rows [h n, (h + 1) n), so that the space maps, the kernel and
// its adjoint run once per step on one block instead of L times on n rows (each call's set-up,
// the transposed copy of Z included, paid once).
struct WrappedSamples {
  Matrix location;  // (L n) x ambient: the means, repeated for each sample
  Matrix variance;  // (L n) x Q: the variances, repeated
  Matrix eps;       // (L n) x Q: the noise of sample h in rows [h n, (h + 1) n)
  Matrix points;    // (L n) x ambient: the samples
  Matrix cross;     // (L n) x M: k(x^(h)_n, Z)
};

// eps holds the standard normal noise, n x (L Q): sample h in columns [h Q, (h + 1) Q).
SparseStatistics wrapped_rows_statistics(const LatentSpace& space, const Kernel& kernel,
                                         const ConstMatrixRef& Z, const ConstMatrixRef& mean,
                                         const ConstMatrixRef& variance, const ConstMatrixRef& eps,
                                         KlMode kl_mode, const DataRef& Y_local, PsiStatistics& psi,
                                         WrappedSamples& samples);
// ADDS dF/dmean (ambient, exact along tangent directions), dF/dvariance and the rows' dZ, dhyper
// to shared, the KL's share weighted by adjoint.d_kl.
void wrapped_rows_backward(const LatentSpace& space, const Kernel& kernel, const ConstMatrixRef& Z,
                           const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                           const ConstMatrixRef& eps, KlMode kl_mode, const DataRef& Y_local,
                           const WrappedSamples& samples, const StatisticsAdjoint& adjoint, Matrix& d_mean,
                           Matrix& d_variance, SharedGradient& shared);

// The per-row KL estimates (n values) of the rows, for tests and diagnostics.
Vector wrapped_rows_kl(const LatentSpace& space, const ConstMatrixRef& mean, const ConstMatrixRef& variance,
                       const ConstMatrixRef& eps, KlMode kl_mode);

}  // namespace gplvm

#pragma once
// The closed-form optima of the two ProbDR Wishart objectives (the `spectral` fit; "step 2" of the
// two-step MAP; docs/math/probdr.md), up to the rotation X -> X R that neither objective sees:
//
//   covariance (wishart_covariance.hpp): X = U_l (Lambda_l - s2 I)^{1/2}, the l LARGEST eigenpairs of
//     S_hat; s2 = (tr S_hat - sum of the l largest) / (n - l), the mean of the n - l discarded
//     eigenvalues (zeros included), or fixed.
//   precision (wishart_precision.hpp): X = U_l (Lambda_l^{-1} - beta I)^{1/2}, the l SMALLEST
//     eigenpairs of Gamma = Gamma_hat + gamma I; beta = (n - l) / (sum of the n - l discarded), one
//     over the mean of the discarded (larger) eigenvalues, or fixed.
//
// A column whose eigenvalue does not clear the noise (lambda <= s2, resp. 1/lambda <= beta) is zero,
// as in probabilistic PCA: the objective's optimum then has fewer than l directions. With the noise
// estimated this happens only to eigenvalues tied with the discarded ones.
//
// Which sizes each route serves:
//   spectral_covariance_fit  distributed, any n: S_hat = F F^T is never formed; its nonzero
//     eigenpairs come from the d x d matrix F^T F (one allreduce of d^2 doubles, then a replicated
//     dense eigensolve, O(n d^2 / P + d^3)), U_l = F V_l Lambda_l^{-1/2} row by row. For d up to a
//     few thousand. Forming F^T F squares F's condition number: eigenvalues below ~1e-16 lambda_max
//     are noise, which matters only for a fixed s2 that small.
//   spectral_precision_fit   dense and serial: the whole n x n Gamma on one rank, a full dense
//     eigensolve, O(n^3). For n up to a few thousand (tests, small graphs); a large sparse Laplacian
//     takes its eigenpairs from a partial (Krylov-Schur) eigensolver instead
//     (petsc/symmetric_eigensolver.hpp) and this file's formula for the rest (precision_closed_form).
#include "gplvm/core/types.hpp"
#include "gplvm/objectives/wishart_noise.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct WishartOptimum {
  Matrix latents;      // X_hat: this rank's rows (covariance) or all n rows (precision)
  double noise = 0.0;  // s2 or beta: the estimate, or the fixed value
  Vector eigenvalues;  // the l retained eigenvalues of S_hat (largest first) or Gamma (smallest first)
};

// The covariance model's closed form from the l retained (largest) eigenvalues of S_hat (`trace` =
// tr S_hat, n its order): s2 = (tr S_hat - sum of the retained) / (n - l), or fixed, and the column
// scales (lambda - s2)^{1/2} (0 where lambda <= s2), so that X = U_retained diag(scales), row by row:
// the eigenvectors may be distributed and come from any eigensolver. InputError (key "latent_dim")
// unless 1 <= l < n; (key kFixedNoiseKey, "probdr.fixed_noise") as spectral_covariance_fit.
struct CovarianceClosedForm {
  double noise = 0.0;
  Vector scales;
};
CovarianceClosedForm covariance_closed_form(const Vector& retained, double trace, Index num_rows,
                                            const WishartNoise& noise);

// The `count` largest eigenpairs of S_hat = F F^T without forming it: those of the d x d F^T F
// (one allreduce of d^2 doubles, a replicated dense eigensolve), U = F V Lambda^{-1/2} by rows.
// Beyond d the eigenvalues are 0 and their columns of U are zero. Collective; InputError (key
// "latent_dim") unless 1 <= count < n.
struct FactorEigenpairs {
  Vector values;         // count, largest first
  Matrix local_vectors;  // this rank's rows of U (local rows x count)
  double trace = 0.0;    // tr S_hat = tr F^T F
  Index num_rows = 0;    // n
};
FactorEigenpairs factor_eigenpairs(const Communicator& comm, const DataRef& local_factor, Index count);

// Collective. `local_factor` is this rank's rows of F (S_hat = F F^T); the latents come back with
// the same rows. InputError (key "latent_dim") unless 1 <= l < n; (key kFixedNoiseKey, "probdr.fixed_noise")
// if the fixed noise is not positive, or if the estimate is zero (S_hat has rank <= l: the objective is then
// unbounded below as s2 -> 0; fix the noise instead).
WishartOptimum spectral_covariance_fit(const Communicator& comm, const DataRef& local_factor,
                                       Index latent_dim, const WishartNoise& noise);

// Serial. `precision` is the whole n x n Gamma_hat (symmetric, positive semi-definite), regularised
// by gamma >= 0. InputError naming kPrecisionRegularisationKey (wishart_precision.hpp) when
// Gamma_hat + gamma I has a null vector (its smallest eigenvalue <= 1e-10 times its mean one): the
// objective is then unbounded below. Otherwise as spectral_covariance_fit.
// The precision model's closed form from the l retained eigenvalues of Gamma = Gamma_hat + gamma I
// (`trace` = tr Gamma, n its order): beta = (n - l) / (tr Gamma - sum of the retained), or fixed,
// and the column scales (1 / lambda - beta)^{1/2} (0 where 1 / lambda <= beta), so that
// X = U_retained diag(scales), row by row: the eigenvectors may be distributed. Retained pairs other
// than the l smallest (Laplacian eigenmaps drops the constant one) still give a stationary point of
// the objective, in X and beta, though not its minimum. InputError (key kFixedNoiseKey, "probdr.fixed_noise")
// as below.
struct PrecisionClosedForm {
  double noise = 0.0;
  Vector scales;
};
PrecisionClosedForm precision_closed_form(const Vector& retained, double trace, Index num_rows,
                                          const WishartNoise& noise);

WishartOptimum spectral_precision_fit(const Matrix& precision, double regularisation, Index latent_dim,
                                      const WishartNoise& noise);

}  // namespace gplvm

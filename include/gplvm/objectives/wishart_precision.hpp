#pragma once
// The ProbDR Wishart precision objective (the minor-components member: probabilistic MCA, Laplacian
// eigenmaps, LLE; docs/math/probdr.md):
//
//   f(X, beta) = d/2 [tr(K Gamma) - log|K|],   K = X X^T + beta I_n,   Gamma = Gamma_hat + gamma I_n,
//              = d/2 [tr(X^T Gamma X) + beta tr Gamma - (n - l) log beta - log|A_beta|],
//
// with A_beta = beta I_l + X^T X: the KL from W(Gamma, d) to W(K^{-1}, d) less its X-free part, to
// be minimised. Gradients: df/dX = d (Gamma X - X A_beta^{-1}), df/dbeta = d/2 (tr Gamma - tr K^{-1}).
//
// Gamma_hat comes through a PrecisionOperator (dense or sparse, rows distributed as X's). An
// evaluation applies it once to X and sums X^T X and tr(X^T Gamma X) in ONE allreduce of l^2 + 1
// doubles; n and tr Gamma are summed once, at construction.
//
// Regularisation. A Laplacian (LE) or W W^T (LLE) is singular: Gamma_hat 1 = 0. Along X = t 1 e_1^T
// the trace term then stays constant while -log|A_beta| falls like -2 log t, so f has no minimum
// (it is unbounded below) and the closed form would need 1/0. The objective therefore refuses
// gamma = 0 when Gamma_hat annihilates the constant vector (InputError naming
// kPrecisionRegularisationKey), and Gamma_hat + gamma I with gamma > 0 is used instead: its minor
// eigenvector is then the constant one, with eigenvalue gamma (drop it, or take l + 1 columns).
// The check here sees only the constant vector (a Laplacian, W W^T); the closed form
// (wishart_spectral.hpp) sees every null vector, e.g. D^{1/2} 1 of a normalised Laplacian.
#include "gplvm/core/types.hpp"
#include "gplvm/objectives/precision_operator.hpp"
#include "gplvm/objectives/wishart_noise.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// The name under which the regularisation gamma is set and reported in errors.
inline constexpr const char* kPrecisionRegularisationKey = "probdr.precision_regularisation";

// Whether Gamma_hat 1 = 0 to rounding: ||Gamma_hat 1|| <= 1e-10 (tr Gamma_hat / n) sqrt(n), i.e. the
// constant vector's Rayleigh quotient is negligible next to Gamma_hat's mean eigenvalue.
inline constexpr double kNullVectorTolerance = 1e-10;

class WishartPrecision {
 public:
  // Collective. `precision` must outlive the objective. `regularisation` is gamma >= 0.
  // InputError naming kPrecisionRegularisationKey if gamma is negative or not finite, or if gamma
  // is 0 and Gamma_hat 1 = 0 (the objective would be unbounded below).
  WishartPrecision(const Communicator& comm, const PrecisionOperator& precision, double degrees_of_freedom,
                   double regularisation);

  // Collective: f at (X, beta), and its gradients when `with_gradient`. InputError unless beta > 0.
  WishartEvaluation evaluate(const ConstMatrixRef& local_latents, double beta,
                             bool with_gradient = true) const;

  Index num_rows() const noexcept { return num_rows_; }
  double degrees_of_freedom() const noexcept { return dof_; }
  double regularisation() const noexcept { return gamma_; }
  double trace() const noexcept { return trace_; }  // tr(Gamma_hat + gamma I)

 private:
  const Communicator& comm_;
  const PrecisionOperator& precision_;
  double dof_;
  double gamma_;
  Index num_rows_ = 0;
  double trace_ = 0.0;
};

}  // namespace gplvm

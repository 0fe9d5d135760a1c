#pragma once
// The `spectral` fit of a ProbDR moment (docs/math/probdr.md): the Wishart objective's closed-form
// optimum from the moment's extreme eigenpairs, computed by SLEPc's Krylov-Schur solver on the
// distributed operator (petsc/symmetric_eigensolver.hpp), so that only l (+ null vectors) columns
// are ever held: the l largest of S_hat for a covariance moment, the l smallest of
// Gamma_hat + gamma I after its null vectors for a precision moment. The noise is the closed form's
// (objectives/wishart_spectral.hpp: estimated from the trace, or fixed).
#include <functional>
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/objectives/wishart_noise.hpp"
#include "gplvm/objectives/wishart_spectral.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/petsc/symmetric_eigensolver.hpp"
#include "gplvm/probdr/moment.hpp"

namespace gplvm {

// How the eigenproblem of a moment backed by a sparse PETSc matrix (le's Laplacian, LLE's
// (I - W)^T (I - W), dmaps' diffusion matrix) is solved (petsc/symmetric_eigensolver.hpp): plain
// Krylov-Schur, which needs only products; shift-and-invert about a shift just outside the wanted
// end, which needs one sparse factorisation and then converges in a few restarts where plain
// restarts grow with n and with the clustering of the wanted eigenvalues (LLE's: 3,000 restarts at
// n = 300); automatic (probdr.eigensolver = auto): shift-and-invert wherever the moment is such a
// matrix, Krylov-Schur on the others.
enum class EigenRoute { automatic, krylov_schur, shift_invert };

struct SpectralFitOptions {
  Index latent_dim = 2;
  WishartNoise noise = WishartNoise::estimated();
  double regularisation = 1e-3;  // gamma of a precision moment
  double tolerance = 1e-12;      // the eigensolver's
  std::function<void(const EigenProgress&)> progress;
  EigenRoute route = EigenRoute::automatic;
  Index subspace = 0;  // the Krylov subspace (SparseEigenOptions::subspace); 0: spectral_fit chooses
};

struct SpectralFit {
  WishartOptimum optimum;  // latents: this rank's rows
  Matrix classical;        // the method's classical coordinates (MomentEstimate::classical), this rank's rows
  Vector dropped;          // a precision moment's null vectors' eigenvalues of Gamma (gamma, to rounding)
  double trace = 0.0;      // tr S_hat, or tr(Gamma_hat + gamma I)
  Index iterations = 0;    // the eigensolver's restarts
  std::string eigensolver;  // the route taken, in words (a run file's /probdr/method@eigensolver)
};

// Routes: a LowRankCovariance (F F^T with d columns) through the d x d F^T F
// (objectives/wishart_spectral.hpp, factor_eigenpairs), exact and cheap for d up to a few thousand;
// a PetscMatrixPrecision through its own sparse matrix; any other operator through a PETSc shell
// matrix (petsc/shell_matrix.hpp) whose product is the operator's apply, with ||M|| for SLEPc's
// convergence test the Frobenius norm of dense rows (one pass) or else estimated by a few power
// steps. A PETSc-matrix moment may take the
// shift-and-invert route (EigenRoute): a precision's shift lies kShiftMargin ||Gamma_hat||_inf below
// 0 (it is positive semi-definite), a covariance's the same margin above its known largest
// eigenvalue (PetscMatrixCovariance::spectrum_top), whose vector is deflated.
//
// Collective; needs a PetscSession. InputError (key "model.latent_dim") unless 1 <= l and l plus
// the null vectors < n; (key "probdr.precision_regularisation") for a precision moment with null
// vectors and gamma <= 0, or whose retained eigenvalues of Gamma include a null one; as the closed
// forms otherwise; (key "probdr.eigensolver") for shift_invert on a moment without a sparse matrix or
// a known top of its spectrum.
SpectralFit spectral_fit(const MomentEstimate& moment, const SpectralFitOptions& options,
                         const Communicator& comm);

}  // namespace gplvm

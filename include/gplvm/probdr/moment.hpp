#pragma once
// Step 1 of a ProbDR method (docs/math/probdr.md): the moment estimated from the data, which the
// Wishart objectives and their closed forms take. A covariance moment S_hat (PCA, classical MDS,
// Isomap, kernel PCA, diffusion maps) is fitted by its l LARGEST eigenpairs, a precision moment
// Gamma_hat (Laplacian eigenmaps, LLE) by the l SMALLEST of Gamma_hat + gamma I, after dropping
// its null vectors (the constant one, or D^{1/2} 1), which carry no embedding.
#include <functional>
#include <memory>
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/objectives/covariance_operator.hpp"
#include "gplvm/objectives/precision_operator.hpp"

namespace gplvm {

enum class MomentForm { covariance, precision };

struct MomentEstimate {
  MomentForm form = MomentForm::covariance;
  // Exactly one is set, as `form` says; rows distributed as the data's (RowPartition).
  std::unique_ptr<CovarianceOperator> covariance;
  std::unique_ptr<PrecisionOperator> precision;
  // The Wishart's degrees of freedom d: probdr.degrees_of_freedom, else the method's own (the data's
  // width for PCA, whose S_hat is Y Y^T / D; 1 for the other moments). It scales the objective, not
  // its optimum.
  double degrees_of_freedom = 1.0;
  // Precision moments: how many of Gamma_hat's smallest eigenvectors are null vectors to drop
  // before the l retained (1 for a connected graph's Laplacian and for LLE's W W^T); 0 otherwise.
  Index null_vectors = 0;
  // Those null vectors when known in closed form (1 / sqrt(n); D^{1/2} 1 normalised): this rank's
  // rows, orthonormal columns (null_vectors of them), else empty. A gradient fit keeps X orthogonal
  // to them, so that it reaches the same optimum as the spectral fit: without that constraint the
  // objective's minimum would take the null vector as its first latent column.
  Matrix null_space;
  // The method's classical coordinates from this rank's rows of the retained eigenvectors and
  // their eigenvalues (of S_hat, or of Gamma_hat without gamma): e.g. U Lambda^{1/2} for classical
  // MDS, D^{-1/2} U for Laplacian eigenmaps, lambda^t psi for diffusion maps.
  std::function<Matrix(const Matrix& local_vectors, const Vector& eigenvalues)> classical;
  // What was estimated, in words, for the run file and `info` (e.g. "Isomap geodesic Gram matrix,
  // exact, k = 10 union graph, double-centred").
  std::string description;
};

}  // namespace gplvm

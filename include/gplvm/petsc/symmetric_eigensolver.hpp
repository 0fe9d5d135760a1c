#pragma once
// The extreme eigenpairs of a distributed symmetric PETSc matrix (a graph Laplacian, a sparse
// precision), optionally of the generalised problem A v = lambda B v with B diagonal and positive
// (the degree matrix of Laplacian eigenmaps), by SLEPc's Krylov-Schur.
//
// Method. Plain Krylov-Schur on the ends of the spectrum (EPS_SMALLEST_REAL / EPS_LARGEST_REAL; for
// a positive semi-definite A the smallest real eigenvalues are the smallest in magnitude), not
// shift-and-invert: shift-and-invert needs a factorisation of A - sigma B, which PETSc only has in
// parallel through external packages, or an inner iterative solve whose tolerance would bound the
// eigenvectors' accuracy. Plain Krylov-Schur needs only MatMult (a halo exchange and a local sparse
// product), so it scales with the matrix; its cost is more restarts when the wanted eigenvalues
// are clustered relative to the spread of the spectrum. The generalised problem is solved as
// B^{-1} A (SLEPc's STSHIFT with sigma = 0), B^{-1} applied exactly by Jacobi since B is diagonal.
//
// Convergence. A pair counts as converged when ||A v - lambda B v|| <= tolerance ||A|| ||v||
// (EPS_CONV_NORM: relative to the matrix, not to lambda, so that eigenvalues near zero, a
// Laplacian's, need not be resolved to their own relative precision). For a symmetric problem the
// eigenvalue's error is then of order (tolerance ||A||)^2 / gap, and the eigenvector's angle of
// order tolerance ||A|| / gap, gap being the distance to the rest of the spectrum.
//
// The eigenvectors come back as this rank's rows of the matrix (its RowPartition rows), unit norm
// (B-norm for the generalised problem), with the sign convention of parallel/column_signs.hpp.
#include <functional>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/petsc/petsc_matrix.hpp"

namespace gplvm {

enum class SpectrumEnd { smallest, largest };

// One Krylov-Schur restart: its number, the pairs converged so far, and the largest error estimate
// among the wanted pairs not yet converged (0 once all are). On every rank.
struct EigenProgress {
  Index iteration = 0;
  Index converged = 0;
  double error_estimate = 0.0;
};

struct SparseEigenOptions {
  Index count = 1;  // eigenpairs wanted, 1 <= count < n
  SpectrumEnd end = SpectrumEnd::smallest;
  double tolerance = 1e-12;
  Index max_iterations = 100000;                       // restarts
  std::function<void(const EigenProgress&)> progress;  // called after every restart, if set
};

struct SparseEigenpairs {
  Vector values;         // `count` eigenvalues: ascending (smallest) or descending (largest)
  Matrix local_vectors;  // this rank's rows x count
  Index iterations = 0;  // Krylov-Schur restarts
};

// Collective over `comm` (A's communicator). `local_diagonal`, when given, is this rank's entries of
// B's diagonal (all positive). InputError (key "eigen.count") unless 1 <= count < n; Error naming
// the pairs found if SLEPc stops before `count` pairs converge.
SparseEigenpairs symmetric_eigenpairs(Mat matrix, const SparseEigenOptions& options, const Communicator& comm,
                                      const Vector* local_diagonal = nullptr);

}  // namespace gplvm

#pragma once
// The extreme eigenpairs of a distributed symmetric PETSc matrix (a graph Laplacian, a sparse
// precision), optionally of the generalised problem A v = lambda B v with B diagonal and positive
// (the degree matrix of Laplacian eigenmaps), by SLEPc's Krylov-Schur.
//
// Method. Plain Krylov-Schur on the ends of the spectrum (EPS_SMALLEST_REAL / EPS_LARGEST_REAL; for
// a positive semi-definite A the smallest real eigenvalues are the smallest in magnitude) needs only
// MatMult (a halo exchange and a local sparse product), so it scales with the matrix; its cost is
// more restarts when the wanted eigenvalues are clustered relative to the spread of the spectrum.
// The generalised problem is solved as B^{-1} A (SLEPc's STSHIFT with sigma = 0), B^{-1} applied
// exactly by Jacobi since B is diagonal.
//
// Shift-and-invert (opt-in: `shift` set). The eigenpairs nearest sigma = *shift, found as the largest
// of (A - sigma B)^{-1}, applied through one sparse LDL^T factorisation of A - sigma B by MUMPS (the
// parallel direct solver in Debian's PETSc build), then two triangular solves per Krylov step. Set
// sigma just outside the spectrum on the wanted end's side (below a positive semi-definite A's
// smallest eigenvalue, above a matrix's largest), so that the wanted end is what lies nearest it.
// It pays one factorisation (time and the fill's memory) for fast convergence where plain
// Krylov-Schur stalls: the smallest eigenvalues of a large graph's Laplacian crowd near 0 relative to
// its spread (a 10^6-point k-NN graph's differ by about 1e-5 of ||A||), so plain restarts grow with n,
// while relative to sigma they are well apart. The convergence test is then SLEPc's relative one on
// the inverted problem, which bounds ||A v - lambda B v|| by about tolerance ||A - sigma B|| ||v||,
// the plain route's test.
//
// Deflation (`local_deflation`, any route): known eigenvectors the solver is to leave out (SLEPc's
// deflation space), e.g. the trivial eigenvector of a diffusion matrix; the pairs found are then
// orthogonal to them.
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
#include <optional>

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
  Index max_iterations = 100000;  // restarts
  // The Krylov subspace's dimension (SLEPc's ncv); 0: SLEPc's max(2 count, count + 15). A larger
  // one needs far fewer restarts where the wanted eigenvalues are clustered, for ncv vectors of
  // memory.
  Index subspace = 0;
  std::function<void(const EigenProgress&)> progress;  // called after every restart, if set
  std::optional<double> shift;                         // sigma of shift-and-invert, if set (above)
  Matrix local_deflation;  // this rank's rows of known eigenvectors to leave out (orthonormal columns)
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

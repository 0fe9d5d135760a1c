#include "gplvm/petsc/symmetric_eigensolver.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/parallel/column_signs.hpp"
#include "gplvm/petsc/petsc_error.hpp"
#include "gplvm/petsc/slepc_eps.hpp"

namespace gplvm {
namespace {

// B = diag(local_diagonal) with A's row layout, as an AIJ matrix: SLEPc applies and inverts it
// like any other matrix.
MatHandle diagonal_matrix(Mat like, const Vector& local_diagonal, const Communicator& comm) {
  PetscInt begin = 0, end = 0, n = 0;
  check_petsc(MatGetOwnershipRange(like, &begin, &end), "MatGetOwnershipRange");
  check_petsc(MatGetSize(like, &n, nullptr), "MatGetSize");
  // One agreed check, so that a bad diagonal on one rank throws on all of them.
  const bool fits = local_diagonal.size() == end - begin && (local_diagonal.array() > 0).all();
  require(comm.allreduce_sum(static_cast<std::int64_t>(fits ? 0 : 1)) == 0,
          "B's diagonal must be positive and have the matrix's local rows on every rank",
          {"", "eigen.diagonal"});
  LocalSparseRows rows;
  rows.num_columns = n;
  rows.first_row = begin;
  for (PetscInt i = 0; i < end - begin; ++i) {
    rows.columns.push_back(begin + i);
    rows.values.push_back(local_diagonal[i]);
    rows.row_start.push_back(i + 1);
  }
  return distributed_matrix(rows, comm);
}

// SLEPc's monitor: the restart's progress to the caller's callback. An exception must not unwind
// through SLEPc's C frames, so it becomes a PETSc error (the solve then fails with it).
PetscErrorCode report_progress(EPS, PetscInt iteration, PetscInt converged, PetscScalar*, PetscScalar*,
                               PetscReal* estimates, PetscInt num_estimates, void* context) {
  const auto& options = *static_cast<const SparseEigenOptions*>(context);
  EigenProgress progress{iteration, converged, 0.0};
  for (PetscInt i = converged; i < std::min<PetscInt>(num_estimates, options.count); ++i)
    progress.error_estimate = std::max(progress.error_estimate, static_cast<double>(estimates[i]));
  try {
    options.progress(progress);
  } catch (...) {
    return PETSC_ERR_USER;
  }
  return 0;
}

constexpr const char* kMumpsOrderingOption = "-st_mat_mumps_icntl_7";

// The spectral transformation's inner solve: a direct one, B^{-1} by Jacobi (exact for a diagonal B)
// or (A - sigma B)^{-1} by a MUMPS LDL^T factorisation.
void configure_inner_solve(EPS eps, bool shift_invert) {
  ST st = nullptr;
  KSP ksp = nullptr;
  PC pc = nullptr;
  check_petsc(EPSGetST(eps, &st), "EPSGetST");
  if (shift_invert) check_petsc(STSetType(st, STSINVERT), "STSetType");
  check_petsc(STGetKSP(st, &ksp), "STGetKSP");
  check_petsc(KSPSetType(ksp, KSPPREONLY), "KSPSetType");
  check_petsc(KSPGetPC(ksp, &pc), "KSPGetPC");
  if (!shift_invert) {
    check_petsc(PCSetType(pc, PCJACOBI), "PCSetType");
    return;
  }
  check_petsc(PCSetType(pc, PCCHOLESKY), "PCSetType");
  check_petsc(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS), "PCFactorSetMatSolverType");
  // The fill-reducing ordering: QAMD (MUMPS ICNTL(7) = 6), minimum degree with quasi-dense rows
  // detected, unless the user's PETSc options name one. Debian's MUMPS has no METIS or SCOTCH, so
  // its automatic choice for large matrices is PORD, whose nested dissection crashed (SIGSEGV in
  // findIndMultisecs) on the k-NN Laplacian of 10^6 rows in 50 dimensions, whose hub rows (high-D
  // k-NN graphs have some of very high degree) QAMD is made for. The option is read, with the ST's
  // "st_" prefix, when the factorisation is set up.
  PetscBool named = PETSC_FALSE;
  check_petsc(PetscOptionsHasName(nullptr, nullptr, kMumpsOrderingOption, &named), "PetscOptionsHasName");
  if (!named) check_petsc(PetscOptionsSetValue(nullptr, kMumpsOrderingOption, "6"), "PetscOptionsSetValue");
}

// Krylov-Schur on the wanted end (or nearest the shift), with the tolerance and convergence test of
// the header.
void configure(EPS eps, const SparseEigenOptions& options, bool generalised) {
  const bool shift_invert = options.shift.has_value();
  check_petsc(EPSSetProblemType(eps, generalised ? EPS_GHEP : EPS_HEP), "EPSSetProblemType");
  check_petsc(EPSSetType(eps, EPSKRYLOVSCHUR), "EPSSetType");
  if (shift_invert) {
    check_petsc(EPSSetTarget(eps, *options.shift), "EPSSetTarget");
    check_petsc(EPSSetWhichEigenpairs(eps, EPS_TARGET_MAGNITUDE), "EPSSetWhichEigenpairs");
  } else {
    check_petsc(EPSSetWhichEigenpairs(
                    eps, options.end == SpectrumEnd::smallest ? EPS_SMALLEST_REAL : EPS_LARGEST_REAL),
                "EPSSetWhichEigenpairs");
  }
  check_petsc(EPSSetDimensions(eps, static_cast<PetscInt>(options.count),
                               options.subspace > 0 ? static_cast<PetscInt>(options.subspace) : PETSC_DEFAULT,
                               PETSC_DEFAULT),
              "EPSSetDimensions");
  check_petsc(EPSSetTolerances(eps, options.tolerance, static_cast<PetscInt>(options.max_iterations)),
              "EPSSetTolerances");
  check_petsc(EPSSetConvergenceTest(eps, shift_invert ? EPS_CONV_REL : EPS_CONV_NORM),
              "EPSSetConvergenceTest");
  if (generalised || shift_invert) configure_inner_solve(eps, shift_invert);
  if (options.progress)
    check_petsc(EPSMonitorSet(eps, report_progress, const_cast<SparseEigenOptions*>(&options), nullptr),
                "EPSMonitorSet");
}

// The known eigenvectors as SLEPc's deflation space (it copies them).
void set_deflation(EPS eps, Mat matrix, const Matrix& local_deflation, const Communicator& comm,
                   std::string& recorded) {
  PetscInt local = 0;
  check_petsc(MatGetLocalSize(matrix, &local, nullptr), "MatGetLocalSize");
  const Index columns = comm.allreduce_max(static_cast<std::int64_t>(local_deflation.cols()));
  if (columns == 0) return;
  const bool fits = local_deflation.rows() == local && local_deflation.cols() == columns;
  require(comm.allreduce_sum(static_cast<std::int64_t>(fits ? 0 : 1)) == 0,
          "the deflation vectors must have the matrix's local rows and the same count on every rank",
          {"", "eigen.deflation"});
  std::vector<VecHandle> vectors(static_cast<std::size_t>(columns));
  std::vector<Vec> raw;
  for (Index j = 0; j < columns; ++j) {
    check_petsc(MatCreateVecs(matrix, vectors[j].out(), nullptr), "MatCreateVecs", recorded);
    copy_into(vectors[j].get(), local_deflation.col(j));
    raw.push_back(vectors[j].get());
  }
  check_petsc(EPSSetDeflationSpace(eps, static_cast<PetscInt>(columns), raw.data()), "EPSSetDeflationSpace",
              recorded);
}

// The first `count` converged pairs, in SLEPc's order (the wanted end first).
SparseEigenpairs converged_pairs(EPS eps, Mat matrix, Index count) {
  SparseEigenpairs pairs;
  pairs.values.resize(count);
  VecHandle vector;
  check_petsc(MatCreateVecs(matrix, vector.out(), nullptr), "MatCreateVecs");
  PetscInt local = 0;
  check_petsc(MatGetLocalSize(matrix, &local, nullptr), "MatGetLocalSize");
  pairs.local_vectors.resize(local, count);
  for (Index j = 0; j < count; ++j) {
    PetscScalar value = 0;
    check_petsc(EPSGetEigenpair(eps, static_cast<PetscInt>(j), &value, nullptr, vector.get(), nullptr),
                "EPSGetEigenpair");
    pairs.values[j] = value;
    pairs.local_vectors.col(j) = copy_out(vector.get());
  }
  PetscInt iterations = 0;
  check_petsc(EPSGetIterationNumber(eps, &iterations), "EPSGetIterationNumber");
  pairs.iterations = iterations;
  return pairs;
}

}  // namespace

SparseEigenpairs symmetric_eigenpairs(Mat matrix, const SparseEigenOptions& options, const Communicator& comm,
                                      const Vector* local_diagonal) {
  require_petsc_session("the sparse eigensolver");
  PetscInt n = 0, begin = 0, end = 0;
  check_petsc(MatGetSize(matrix, &n, nullptr), "MatGetSize");
  check_petsc(MatGetOwnershipRange(matrix, &begin, &end), "MatGetOwnershipRange");
  require(options.subspace == 0 || (options.subspace > options.count && options.subspace <= n),
          "the Krylov subspace must hold more vectors than the eigenpairs wanted and at most n",
          {"", "eigen.subspace",
           std::to_string(options.subspace) + " (count " + std::to_string(options.count) + ", n " +
               std::to_string(n) + ")"});
  require(options.count >= 1 && options.count < n, "the number of eigenpairs must satisfy 1 <= count < n",
          {"", "eigen.count", std::to_string(options.count) + " (n = " + std::to_string(n) + ")"});
  MatHandle diagonal;
  if (local_diagonal) diagonal = diagonal_matrix(matrix, *local_diagonal, comm);

  std::string recorded;
  EpsHandle eps;
  {
    PetscErrorScope scope(recorded);
    check_petsc(EPSCreate(comm.raw(), eps.out()), "EPSCreate", recorded);
    check_petsc(EPSSetOperators(eps.get(), matrix, local_diagonal ? diagonal.get() : nullptr),
                "EPSSetOperators", recorded);
    configure(eps.get(), options, local_diagonal != nullptr);
    set_deflation(eps.get(), matrix, options.local_deflation, comm, recorded);
    check_petsc(EPSSolve(eps.get()), "EPSSolve", recorded);
  }
  PetscInt converged = 0;
  check_petsc(EPSGetConverged(eps.get(), &converged), "EPSGetConverged");
  if (converged < options.count)
    throw NumericalError("the sparse eigensolver converged " + std::to_string(converged) + " of " +
                         std::to_string(options.count) + " eigenpairs within " +
                         std::to_string(options.max_iterations) + " restarts (tolerance " +
                         std::to_string(options.tolerance) + ")");
  SparseEigenpairs pairs = converged_pairs(eps.get(), matrix, options.count);
  fix_column_signs(pairs.local_vectors, begin, comm);
  return pairs;
}

}  // namespace gplvm

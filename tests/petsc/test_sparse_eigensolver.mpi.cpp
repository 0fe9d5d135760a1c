// The sparse symmetric eigensolver (SLEPc's Krylov-Schur) at 1-4 ranks, n = 103 (so every split is
// uneven), against Eigen's dense eigendecompositions of the same matrix: the smallest and the
// largest eigenpairs, and the generalised problem A v = lambda B v with B diagonal. Eigenvalues to
// 1e-10, the projectors onto the eigenvectors' span to 1e-8, and each eigenvector itself under the
// sign convention (the spectrum is simple, so a vector is determined up to that sign).
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <random>

#include "gplvm/core/error.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/petsc/symmetric_eigensolver.hpp"
#include "support/petsc_environment.hpp"

namespace gplvm {
namespace {

constexpr Index kN = 103;

// A sparse symmetric matrix: a weighted ring with random chords (a Laplacian-like pattern) and a
// diagonal that varies enough to make the spectrum simple. The same on every rank (fixed seed).
Matrix test_matrix() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> weight(0.5, 1.5);
  std::uniform_int_distribution<Index> vertex(0, kN - 1);
  Matrix A = Matrix::Zero(kN, kN);
  for (Index i = 0; i < kN; ++i) A(i, (i + 1) % kN) = A((i + 1) % kN, i) = -weight(rng);
  for (int chord = 0; chord < 60; ++chord) {
    const Index i = vertex(rng), j = vertex(rng);
    if (i != j) A(i, j) = A(j, i) = -weight(rng);
  }
  for (Index i = 0; i < kN; ++i) A(i, i) = -A.row(i).sum() + A(i, i) + 0.01 * static_cast<double>(i % 17);
  return A;
}

Vector test_diagonal() {
  Vector b(kN);
  for (Index i = 0; i < kN; ++i) b[i] = 1.0 + 0.5 * std::sin(static_cast<double>(i));
  return b;
}

// This rank's rows of dense `A` as a distributed PETSc matrix (its nonzeros only).
MatHandle distributed(const Matrix& A, const Communicator& comm) {
  const RowPartition partition(kN, comm.size());
  LocalSparseRows rows;
  rows.num_columns = kN;
  rows.first_row = static_cast<std::int64_t>(partition.begin(comm.rank()));
  for (Index i = 0; i < static_cast<Index>(partition.count(comm.rank())); ++i) {
    for (Index j = 0; j < kN; ++j)
      if (A(rows.first_row + i, j) != 0.0) {
        rows.columns.push_back(j);
        rows.values.push_back(A(rows.first_row + i, j));
      }
    rows.row_start.push_back(static_cast<std::int64_t>(rows.columns.size()));
  }
  return distributed_matrix(rows, comm);
}

Matrix span_projector(const Matrix& V) {
  const Matrix Q = Eigen::HouseholderQR<Matrix>(V).householderQ() * Matrix::Identity(V.rows(), V.cols());
  return Q * Q.transpose();
}

// The convention of parallel/column_signs.hpp, serially: largest magnitude positive, ties low.
Matrix with_fixed_signs(Matrix V) {
  for (Index j = 0; j < V.cols(); ++j) {
    const double largest = V.col(j).cwiseAbs().maxCoeff();
    Index at = 0;
    while (std::abs(V(at, j)) < largest * (1.0 - 1e-8)) ++at;
    if (V(at, j) < 0) V.col(j) *= -1.0;
  }
  return V;
}

struct Reference {
  Vector values;
  Matrix vectors;
};

// Eigen's eigenpairs, ascending, the `count` wanted ones in the solver's order.
Reference dense_reference(const Matrix& A, const Vector* b, SpectrumEnd end, Index count) {
  Vector values;
  Matrix vectors;
  if (b) {
    const Eigen::GeneralizedSelfAdjointEigenSolver<Matrix> solver(A, Matrix(b->asDiagonal()));
    values = solver.eigenvalues();
    vectors = solver.eigenvectors();
  } else {
    const Eigen::SelfAdjointEigenSolver<Matrix> solver(A);
    values = solver.eigenvalues();
    vectors = solver.eigenvectors();
  }
  if (end == SpectrumEnd::smallest) return {values.head(count), with_fixed_signs(vectors.leftCols(count))};
  return {values.tail(count).reverse(), with_fixed_signs(vectors.rightCols(count).rowwise().reverse())};
}

enum class Route { plain, shift_invert };

// A shift just outside the spectrum on the wanted end's side: below 0 (A is positive semi-definite
// by diagonal dominance) or above ||A||_inf (a bound on its spectral radius; for the generalised
// problem divided by B's smallest entry).
double outside_shift(SpectrumEnd end, bool generalised) {
  if (end == SpectrumEnd::smallest) return -1e-3;
  const double bound = test_matrix().cwiseAbs().rowwise().sum().maxCoeff();
  return 1.01 * (generalised ? bound / test_diagonal().minCoeff() : bound);
}

void expect_matches_dense(SpectrumEnd end, Index count, bool generalised, Route route = Route::plain) {
  const Communicator comm;
  const Matrix A = test_matrix();
  const Vector b = test_diagonal();
  const MatHandle matrix = distributed(A, comm);
  const RowPartition partition(kN, comm.size());
  const Vector local_b = b.segment(static_cast<Index>(partition.begin(comm.rank())),
                                   static_cast<Index>(partition.count(comm.rank())));
  SparseEigenOptions options;
  options.count = count;
  options.end = end;
  Index reports = 0;
  options.progress = [&](const EigenProgress&) { ++reports; };
  if (route == Route::shift_invert) options.shift = outside_shift(end, generalised);
  const SparseEigenpairs pairs =
      symmetric_eigenpairs(matrix.get(), options, comm, generalised ? &local_b : nullptr);
  const Reference reference = dense_reference(A, generalised ? &b : nullptr, end, count);
  const Matrix vectors = comm.allgather_rows(ConstMatrixRef(pairs.local_vectors));

  EXPECT_GT(reports, 0);
  EXPECT_LT((pairs.values - reference.values).cwiseAbs().maxCoeff(), 1e-10);
  const double projector =
      (span_projector(vectors) - span_projector(reference.vectors)).cwiseAbs().maxCoeff();
  EXPECT_LT(projector, 1e-8);
  EXPECT_LT((vectors - reference.vectors).cwiseAbs().maxCoeff(), 1e-8);
  if (comm.rank() == 0)
    std::printf(
        "[ measured ] end %d generalised %d shift-invert %d: eigenvalue error %.2e, projector %.2e, "
        "restarts %ld\n",
        static_cast<int>(end), static_cast<int>(generalised), static_cast<int>(route),
        (pairs.values - reference.values).cwiseAbs().maxCoeff(), projector,
        static_cast<long>(pairs.iterations));
}

TEST(SparseEigensolver, SmallestEqualDense) {
  expect_matches_dense(SpectrumEnd::smallest, 6, false);
}
TEST(SparseEigensolver, LargestEqualDense) {
  expect_matches_dense(SpectrumEnd::largest, 4, false);
}
TEST(SparseEigensolver, GeneralisedSmallestEqualDense) {
  expect_matches_dense(SpectrumEnd::smallest, 6, true);
}

// Shift-and-invert (a MUMPS factorisation of A - sigma B, distributed at 2-4 ranks) finds the same
// pairs as the dense reference, at both ends and for the generalised problem.
TEST(SparseEigensolver, ShiftInvertSmallestEqualDense) {
  expect_matches_dense(SpectrumEnd::smallest, 6, false, Route::shift_invert);
}
TEST(SparseEigensolver, ShiftInvertLargestEqualDense) {
  expect_matches_dense(SpectrumEnd::largest, 4, false, Route::shift_invert);
}
TEST(SparseEigensolver, ShiftInvertGeneralisedSmallestEqualDense) {
  expect_matches_dense(SpectrumEnd::smallest, 6, true, Route::shift_invert);
}

// With the top eigenvector given as a deflation vector, both routes return the next ones.
TEST(SparseEigensolver, DeflatedVectorsAreLeftOut) {
  const Communicator comm;
  const Matrix A = test_matrix();
  const MatHandle matrix = distributed(A, comm);
  const Reference reference = dense_reference(A, nullptr, SpectrumEnd::largest, 4);
  const RowPartition partition(kN, comm.size());
  const Index begin = static_cast<Index>(partition.begin(comm.rank()));
  const Index rows = static_cast<Index>(partition.count(comm.rank()));
  for (const Route route : {Route::plain, Route::shift_invert}) {
    SparseEigenOptions options;
    options.count = 3;
    options.end = SpectrumEnd::largest;
    options.local_deflation = reference.vectors.block(begin, 0, rows, 1);
    if (route == Route::shift_invert) options.shift = outside_shift(SpectrumEnd::largest, false);
    const SparseEigenpairs pairs = symmetric_eigenpairs(matrix.get(), options, comm);
    const Matrix vectors = comm.allgather_rows(ConstMatrixRef(pairs.local_vectors));
    EXPECT_LT((pairs.values - reference.values.tail(3)).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((vectors - reference.vectors.rightCols(3)).cwiseAbs().maxCoeff(), 1e-8);
  }
}

// A larger Krylov subspace (SLEPc's ncv) finds the same pairs in no more restarts than the default one
// (max(2 count, count + 15)), and one holding all n vectors in a single restart.
TEST(SparseEigensolver, LargerSubspaceSameEigenpairsFewerRestarts) {
  const Communicator comm;
  const Matrix A = test_matrix();
  const MatHandle matrix = distributed(A, comm);
  const Reference reference = dense_reference(A, nullptr, SpectrumEnd::smallest, 6);
  Index default_restarts = 0;
  for (const Index subspace : {Index{0}, Index{40}, kN}) {
    SparseEigenOptions options;
    options.count = 6;
    options.end = SpectrumEnd::smallest;
    options.subspace = subspace;
    const SparseEigenpairs pairs = symmetric_eigenpairs(matrix.get(), options, comm);
    const Matrix vectors = comm.allgather_rows(ConstMatrixRef(pairs.local_vectors));
    EXPECT_LT((pairs.values - reference.values).cwiseAbs().maxCoeff(), 1e-10) << subspace;
    EXPECT_LT((vectors - reference.vectors).cwiseAbs().maxCoeff(), 1e-8) << subspace;
    if (subspace == 0) default_restarts = pairs.iterations;
    if (subspace > 0) EXPECT_LE(pairs.iterations, default_restarts) << subspace;
    if (subspace == kN) EXPECT_EQ(pairs.iterations, 1);
    if (comm.rank() == 0)
      std::printf("[ measured ] subspace %ld: restarts %ld\n", static_cast<long>(subspace),
                  static_cast<long>(pairs.iterations));
  }
}

TEST(SparseEigensolver, RefusesACountOutOfRangeAndANonPositiveDiagonal) {
  const Communicator comm;
  const MatHandle matrix = distributed(test_matrix(), comm);
  SparseEigenOptions options;
  options.count = kN;
  EXPECT_THROW(symmetric_eigenpairs(matrix.get(), options, comm), InputError);
  // A subspace no larger than the count, or larger than n.
  options.count = 4;
  for (const Index subspace : {Index{4}, kN + 1}) {
    options.subspace = subspace;
    EXPECT_THROW(symmetric_eigenpairs(matrix.get(), options, comm), InputError) << subspace;
  }
  options.subspace = 0;
  // A zero in B on the first rank only: every rank throws (none is left in a collective).
  options.count = 2;
  const RowPartition partition(kN, comm.size());
  Vector local_b = Vector::Ones(static_cast<Index>(partition.count(comm.rank())));
  if (comm.rank() == 0) local_b[0] = 0.0;
  EXPECT_THROW(symmetric_eigenpairs(matrix.get(), options, comm, &local_b), InputError);
}

}  // namespace

const auto* const petsc_environment = ::testing::AddGlobalTestEnvironment(new testing::PetscEnvironment);

}  // namespace gplvm

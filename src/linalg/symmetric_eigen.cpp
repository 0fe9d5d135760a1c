#include "gplvm/linalg/symmetric_eigen.hpp"

#include <Eigen/Eigenvalues>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

Eigen::SelfAdjointEigenSolver<Matrix> solve(const Matrix& a, Index count, const std::string& what) {
  require(count >= 0 && count <= a.rows(), "more eigenpairs asked for than the matrix has",
          {"", "eigenpairs", what + ": " + std::to_string(count) + " of " + std::to_string(a.rows())});
  Eigen::SelfAdjointEigenSolver<Matrix> solver(a);
  if (solver.info() != Eigen::Success) throw NumericalError("eigendecomposition of " + what + " failed");
  return solver;
}

}  // namespace

SymmetricEigenpairs largest_eigenpairs(const Matrix& a, Index count, const std::string& what) {
  const auto solver = solve(a, count, what);
  // Eigen sorts eigenvalues in increasing order: the largest are the last, reversed.
  SymmetricEigenpairs pairs{solver.eigenvalues().tail(count).reverse(),
                            solver.eigenvectors().rightCols(count).rowwise().reverse()};
  fix_eigenvector_signs(pairs.vectors);
  return pairs;
}

SymmetricEigenpairs smallest_eigenpairs(const Matrix& a, Index count, const std::string& what) {
  const auto solver = solve(a, count, what);
  SymmetricEigenpairs pairs{solver.eigenvalues().head(count), solver.eigenvectors().leftCols(count)};
  fix_eigenvector_signs(pairs.vectors);
  return pairs;
}

void fix_eigenvector_signs(Matrix& vectors) {
  for (Index q = 0; q < vectors.cols(); ++q) {
    Index top = 0;
    vectors.col(q).cwiseAbs().maxCoeff(&top);
    if (vectors(top, q) < 0) vectors.col(q) *= -1.0;
  }
}

}  // namespace gplvm

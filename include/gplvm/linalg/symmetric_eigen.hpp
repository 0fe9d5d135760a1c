#pragma once
// The extreme eigenpairs of a small dense symmetric matrix (Eigen's SelfAdjointEigenSolver, all
// of them, O(m^3)), ordered and with a fixed sign per eigenvector. Eigenvectors are defined up to
// sign; fixing it (largest-magnitude entry positive) makes every result built from them
// reproducible, and comparable between runs whose inputs differ only by rounding.
#include <string>

#include "gplvm/core/types.hpp"

namespace gplvm {

struct SymmetricEigenpairs {
  Vector values;   // `count` eigenvalues, in the order asked for
  Matrix vectors;  // m x count, unit columns in the same order
};

// The `count` largest eigenpairs of the symmetric `a` (lower triangle read), largest first.
// NumericalError naming `what` if the solver fails.
SymmetricEigenpairs largest_eigenpairs(const Matrix& a, Index count, const std::string& what);
// The `count` smallest eigenpairs, smallest first.
SymmetricEigenpairs smallest_eigenpairs(const Matrix& a, Index count, const std::string& what);

// Flips each column so that its largest-magnitude entry is positive.
void fix_eigenvector_signs(Matrix& vectors);

}  // namespace gplvm

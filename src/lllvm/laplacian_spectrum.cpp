#include "gplvm/lllvm/laplacian_spectrum.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/linalg/symmetric_eigen.hpp"

namespace gplvm {

double LaplacianSpectrum::log_pseudo_determinant() const {
  return eigenvalues.tail(eigenvalues.size() - 1).array().log().sum();
}

LaplacianSpectrum laplacian_spectrum(const NeighbourhoodGraph& graph) {
  const Index n = graph.size();
  SymmetricEigenpairs pairs = smallest_eigenpairs(Matrix(graph.laplacian), n, "the LL-LVM graph Laplacian");
  // The null eigenvalue comes out at +-1e-16 or so; the next one of a connected graph is at least
  // of order 1 / n^2 (the path's), far above this floor.
  const double floor = 1e-10 * std::max(1.0, pairs.values[n - 1]);
  if (!(pairs.values[1] > floor))
    throw NumericalError("the Laplacian of a connected graph has a second eigenvalue of " +
                             std::to_string(pairs.values[1]) + ", at rounding level of zero",
                         {"", "graph", std::to_string(n) + " vertices"});
  pairs.values[0] = 0.0;
  const Matrix range = pairs.vectors.rightCols(n - 1);
  const Vector inverse = pairs.values.tail(n - 1).cwiseInverse();
  Matrix pseudo_inverse = range * inverse.asDiagonal() * range.transpose();
  // Exactly symmetric, so that every product built from it is too.
  pseudo_inverse = 0.5 * (pseudo_inverse + pseudo_inverse.transpose()).eval();
  return {std::move(pairs.values), std::move(pseudo_inverse)};
}

}  // namespace gplvm

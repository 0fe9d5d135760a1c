#pragma once
// What LL-LVM needs of the Laplacian's spectrum (docs/math/lllvm.md, "The Laplacian's
// pseudo-inverse"): its eigenvalues 0 = omega_1 < omega_2 <= ... <= omega_n, for the prior's
// log-determinants and the alpha update, and the pseudo-inverse L^+, which replaces
// (eps 1 1^T + 2 gamma L)^-1 in every expectation because the 1 1^T part is annihilated there.
//
// Dense: one O(n^3) eigendecomposition per graph, n^2 doubles for L^+.
#include "gplvm/core/types.hpp"
#include "gplvm/lllvm/neighbourhood_graph.hpp"

namespace gplvm {

struct LaplacianSpectrum {
  Vector eigenvalues;     // ascending; the first (the constant vector's) exactly 0
  Matrix pseudo_inverse;  // L^+, symmetric, L^+ 1 = 0
  // sum_{i >= 2} log omega_i: the log pseudo-determinant of L.
  double log_pseudo_determinant() const;
};

// NumericalError naming the graph if L has more than one eigenvalue at rounding level of zero (the
// graph was checked connected, so that is a failure of the eigensolver, not of the input).
LaplacianSpectrum laplacian_spectrum(const NeighbourhoodGraph& graph);

}  // namespace gplvm

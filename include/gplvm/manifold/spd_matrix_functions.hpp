#pragma once
// Functions of symmetric matrices by symmetric eigendecomposition (Eigen's
// SelfAdjointEigenSolver), shared by the SPD output manifolds, and the Frobenius-orthonormal
// basis of Sym(n) they use as tangent coordinates.
//
// An n x n matrix travels as n^2 numbers in C order (a data row); symmetric ones read the same in
// either order.
#include <string>

#include "gplvm/core/types.hpp"

namespace gplvm::spd {

// n with n^2 = size; InputError naming `key` when size is not a square (or 0).
Index matrix_order(Index size, const std::string& key);
Matrix as_matrix(const ConstVectorRef& flat, Index n);
Vector as_flat(const Matrix& m);
// (A + A^T) / 2.
Matrix symmetric_part(const Matrix& a);

// U f(Lambda) U^T for symmetric S = U Lambda U^T.
Matrix log(const Matrix& s);  // S must be SPD
Matrix exp(const Matrix& s);
Matrix sqrt(const Matrix& s);
Matrix inverse_sqrt(const Matrix& s);

// The derivative of the matrix exponential at symmetric S in the symmetric direction H,
// d/dt exp(S + t H) at t = 0, by the Daleckii-Krein formula: U (Gamma o U^T H U) U^T with
// Gamma_ij = (e^l_i - e^l_j) / (l_i - l_j) (e^l_i where they meet). Self-adjoint in the Frobenius
// inner product, so it is its own adjoint.
Matrix exp_derivative(const Matrix& s, const Matrix& h);

// The symmetric part of A with its eigenvalues clipped below at relative_floor times the largest
// |eigenvalue| (the projection of a Euclidean prediction onto SPD(n)). NumericalError for A = 0.
Matrix clip_to_spd(const Matrix& a, double relative_floor);

// The n(n+1)/2 basis matrices of Sym(n), orthonormal for <A, B> = tr(A^T B), as n^2-vectors
// (columns): E_ii for i = 0..n-1, then (E_ij + E_ji)/sqrt(2) for i < j in row order. The
// coordinates of a symmetric V are V_ii and sqrt(2) V_ij.
Matrix frobenius_basis(Index n);

}  // namespace gplvm::spd

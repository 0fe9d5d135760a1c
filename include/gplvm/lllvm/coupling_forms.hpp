#pragma once
// The coupling forms Phi_A and Phi_Gamma (docs/math/lllvm.md, "The coupling forms"): the expected
// quadratic forms of LL-LVM's likelihood, <A> = (gamma / 2) Phi_A(<C^T C>; L^+) in x and
// <Gamma> = (gamma / 2) Phi_Gamma(<x x^T>; L^+) in C, as Hadamard products and products with the
// sparse G, L and P instead of the paper's O(n^4) quadruple sums over node pairs.
//
// A moment M (n d_x x n d_x, dimension-major) is read block by block: block (r, s) of the result
// depends on block (r, s) of M alone, at O(n^2 k) per block for k neighbours per node. M must be
// symmetric; so is the result, and only the blocks r <= s are computed.
#include "gplvm/core/types.hpp"
#include "gplvm/lllvm/neighbourhood_graph.hpp"

namespace gplvm {

// The operands of both forms for a fixed graph and a fixed symmetric kernel K (L^+ in the model;
// any symmetric K in tests): K, K G and G K G, formed once per graph.
struct CouplingOperators {
  SparseMatrix graph;         // G
  SparseMatrix laplacian;     // L
  SparseMatrix signless;      // P
  Matrix kernel;              // K
  Matrix kernel_graph;        // K G (its transpose is G K)
  Matrix graph_kernel_graph;  // G K G
};

CouplingOperators coupling_operators(const NeighbourhoodGraph& graph, Matrix kernel);

// Phi_A(M; K): gamma^-2 <A> for K = (eps 1 1^T + 2 gamma L)^-1, 2 gamma^-1 <A> for K = L^+.
Matrix phi_a(const CouplingOperators& operators, const Matrix& moment, Index dims);
// Phi_Gamma(M; K), the same for <Gamma>.
Matrix phi_gamma(const CouplingOperators& operators, const Matrix& moment, Index dims);

}  // namespace gplvm

#pragma once
// The order of LL-LVM's stacked latent vectors (docs/math/lllvm.md, "Dimension-major order"):
// entry (node i, latent dimension r) of x, and column (i, r) of C, sit at r n + i, so that
// x = [x^(1); ...; x^(d_x)] with x^(r) the r-th coordinate of every node. A moment matrix of size
// (n d_x)^2 is then a d_x x d_x grid of n x n blocks, block (r, s) holding every pair of nodes'
// (r, s) entries: what the coupling forms act on block by block, and what a block-cyclic layout
// distributes without gathering strided entries. The paper's node-major order (i d_x + r) is a
// symmetric permutation of it, which changes no determinant or trace.
//
// Kronecker products with the identity become block-diagonal: B (x) I_dx (node-major) is
// I_dx (x) B here, d_x copies of B on the diagonal blocks.
#include <Eigen/Core>

#include "gplvm/core/types.hpp"
#include "gplvm/lllvm/neighbourhood_graph.hpp"

namespace gplvm {

using Permutation = Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, Index>;

// The permutation taking a node-major vector to the dimension-major one: v_dm = P v_nm, and a
// node-major matrix M to P M P^T.
Permutation node_to_dimension_major(Index nodes, Index dims);

// m += I_dims (x) block: `block` added to each of the d_x diagonal blocks of m.
void add_to_diagonal_blocks(Matrix& m, const SparseMatrix& block, Index dims);
// sum_r tr(block S^(rr)): tr((I (x) block) S) without forming the Kronecker product.
double trace_with_diagonal_blocks(const SparseMatrix& block, const Matrix& s, Index dims);
// sum_r 1^T S^(rr) 1: tr((I (x) 1 1^T) S).
double sum_of_diagonal_blocks(const Matrix& s, Index dims);

}  // namespace gplvm

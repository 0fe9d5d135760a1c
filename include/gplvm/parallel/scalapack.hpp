#pragma once
// Thin, checked wrappers of the ScaLAPACK / PBLAS routines the project uses, on whole
// BlockCyclicMatrix operands (0-based offsets where a sub-matrix is needed).
//
// Conventions:
// - Shapes and block alignments are checked before the call and a mismatch throws Error naming
//   the routine: PBLAS aborts the whole job on an illegal argument, an exception is kinder.
// - A negative `info` (an illegal argument ScaLAPACK detected itself) throws Error with the
//   routine and info. pdpotrf's positive info (not positive definite at that column) is returned
//   so the caller can escalate jitter; pdpotri's positive info (singular factor) throws
//   NumericalError.
// - The compute routines are collective over the operands' grid and do nothing on ranks outside
//   it (pdpotrf returns 0 there), so callers need not special-case idle ranks. pdgemr2d is
//   collective over a grid spanning every process of both operands.
#include <array>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/block_cyclic_matrix.hpp"

namespace gplvm::scalapack {

// ScaLAPACK's index tools, 0-based in and out (used to cross-check BlockCyclicAxis).
Index numroc(Index n, Index block, int proc, int source, int procs);
int indxg2p(Index global, Index block, int source, int procs);
Index indxg2l(Index global, Index block, int procs);
Index indxl2g(Index local, Index block, int proc, int source, int procs);

// descinit_ with its info checked (throws Error naming the offending argument).
std::array<int, 9> descinit(Index m, Index n, int mb, int nb, int rsrc, int csrc, int context, Index lld);

// Cholesky of the (uplo) triangle in place; returns 0 or the failing column (1-based), never throws
// for a matrix that is not positive definite.
int pdpotrf(BlockCyclicMatrix& a, char uplo = 'L');
// b <- A^{-1} b given pdpotrf's factor of A.
void pdpotrs(const BlockCyclicMatrix& factor, BlockCyclicMatrix& b, char uplo = 'L');
// The (uplo) triangle of A^{-1} in place of pdpotrf's factor of A.
void pdpotri(BlockCyclicMatrix& factor, char uplo = 'L');
// b <- alpha op(A)^{-1} b (side 'L') or alpha b op(A)^{-1} (side 'R'), A triangular.
void pdtrsm(char side, char uplo, char trans, char diag, double alpha, const BlockCyclicMatrix& a,
            BlockCyclicMatrix& b);
// c <- alpha op(a) op(b) + beta c.
void pdgemm(char trans_a, char trans_b, double alpha, const BlockCyclicMatrix& a, const BlockCyclicMatrix& b,
            double beta, BlockCyclicMatrix& c);
// The (uplo) triangle of c <- alpha a a^T + beta c (trans 'N') or alpha a^T a + beta c (trans 'T').
void pdsyrk(char uplo, char trans, double alpha, const BlockCyclicMatrix& a, double beta,
            BlockCyclicMatrix& c);
// Copies the rows x cols sub-matrix of `a` at (a_row, a_col) to `b` at (b_row, b_col), between any
// two layouts and grids. `span` must contain every process of both grids (a grid over the whole
// communicator does); every rank of `span` calls it. Does nothing when rows or cols is 0.
void pdgemr2d(Index rows, Index cols, const BlockCyclicMatrix& a, Index a_row, Index a_col,
              BlockCyclicMatrix& b, Index b_row, Index b_col, const BlacsGrid& span);

}  // namespace gplvm::scalapack

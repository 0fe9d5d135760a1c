#pragma once
// A distributed PETSc matrix known only by its product with a vector (MATSHELL): how an operator
// that the petsc layer cannot see (a ProbDR moment, objectives/covariance_operator.hpp) reaches
// SLEPc's eigensolvers (symmetric_eigensolver.hpp), which need nothing but MatMult.
//
// The product is a std::function over this rank's rows: given this rank's entries of x, write this
// rank's entries of A x. PETSc calls it inside MatMult, which every rank enters together, so it may
// communicate (gather x, allreduce a projection). It must not throw: an exception cannot unwind
// through PETSc's C frames, so one is turned into a PETSc error on the rank that threw, and the
// others may then wait in the function's collective. The operators passed here check their inputs
// when built and only multiply afterwards.
//
// `norm` is what MatNorm answers for any norm type: the scale SLEPc's EPS_CONV_NORM convergence test
// measures residuals against (||A v - lambda v|| <= tolerance ||A||). Without one SLEPc takes
// ||A|| = 1, an absolute tolerance, too tight for a matrix of large entries and too loose for one of
// small; an estimate within a small factor of ||A||_2 (a few power steps) is enough.
#include <functional>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/petsc/petsc_matrix.hpp"

namespace gplvm {

using ShellProduct = std::function<void(const ConstVectorRef& local_in, VectorRef local_out)>;

// Collective: a square n x n MATSHELL with `local_rows` rows (and columns) on this rank, the ranks'
// blocks consecutive in rank order. InputError (key "shell.rows") on every rank unless the local
// rows add up to `global_rows`, or unless the norm is positive and finite (key "shell.norm").
MatHandle shell_matrix(Index local_rows, Index global_rows, ShellProduct product, double norm,
                       const Communicator& comm);

}  // namespace gplvm

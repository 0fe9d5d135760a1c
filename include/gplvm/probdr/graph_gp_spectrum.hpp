#pragma once
// The eigendecomposition L = Q diag(lambda) Q^T of a graph Laplacian that the graph GP works from
// (docs/math/probdr.md, "Graph GP"), held whole on every rank: a dense O(n^3) eigensolve and
// 8 n^2 bytes for Q, which serves n up to a few thousand (n = 4000: 128 MB per rank).
#include "gplvm/core/types.hpp"
#include "gplvm/graph/laplacian.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/probdr/graph_gp_kernel.hpp"

namespace gplvm {

struct GraphSpectrum {
  Vector eigenvalues;  // ascending, >= 0
  Matrix vectors;      // n x n, orthonormal columns in the same order (signs fixed)
  Index size() const noexcept { return eigenvalues.size(); }
};

// Of a dense symmetric positive semi-definite L, the same on every rank that passes the same L.
// InputError (key "laplacian") if L is not square, finite and symmetric, or has an eigenvalue below
// -1e-10 max(1, lambda_max); eigenvalues that small are rounding and are set to 0.
GraphSpectrum graph_spectrum(const Matrix& laplacian);

// Of the Laplacian of a distributed symmetric graph (graph_laplacian, gathered to every rank;
// collective, needs a PetscSession). The random-walk Laplacian is not symmetric: InputError
// naming "graph.laplacian".
GraphSpectrum graph_spectrum(const SparseGraph& graph, LaplacianKind kind, const Communicator& comm);

// Q^T Y for Y distributed by rows as RowPartition splits n rows (this rank's `local_y`): each rank
// multiplies its rows of Q and Y, and one allreduce of n x d doubles sums them. The same n x d
// matrix on every rank. InputError (key "y") if this rank's row count is not its partition's.
Matrix project_onto_spectrum(const GraphSpectrum& spectrum, const ConstMatrixRef& local_y,
                             const Communicator& comm);

// sigma_s^2 s(L) (+ sigma_n^2 I when `with_noise`) as a dense n x n matrix. With `normalise`, s(L)
// is first scaled to unit diagonal, diag(s(L))^-1/2 s(L) diag(s(L))^-1/2, so that every vertex has
// marginal variance sigma_s^2 (+ sigma_n^2). That matrix no longer has L's eigenvectors, so the
// eigen route of the likelihood (graph_gp_marginal.hpp) does not serve it: dense route only.
Matrix graph_gp_covariance(const GraphSpectrum& spectrum, const GraphKernel& kernel,
                           const GraphGpHyperparameters& hyper, bool normalise, bool with_noise);

}  // namespace gplvm

#pragma once
// The closed-form ProbDR fit of Laplacian eigenmaps at scale (docs/math/probdr.md, the precision
// model): Gamma_hat is the Laplacian L of the data's symmetric k-NN graph, kept sparse and
// distributed as a PETSc matrix; Gamma = L + gamma I.
//
//   1. the binary k-NN graph (graph layer: exact k-NN, union symmetrisation, weights 1);
//   2. its Laplacian, by default the symmetric normalised one I - D^-1/2 W D^-1/2 (the one
//      Laplacian eigenmaps and scikit-learn's SpectralEmbedding use; `unnormalised` D - W also
//      works; random_walk is not symmetric and is refused);
//   3. the l + 1 smallest eigenpairs of L by SLEPc (petsc/symmetric_eigensolver.hpp); those of
//      Gamma are the same vectors with eigenvalues + gamma;
//   4. the smallest, L's null vector (1, or D^{1/2} 1 for the normalised Laplacian), dropped: its
//      eigenvalue of Gamma is gamma, so it would take the first latent column as a constant (or
//      degree-weighted) offset that carries no embedding;
//   5. beta and the latents X = U_l (Lambda_l^{-1} - beta I)^{1/2} by the closed form's own formula
//      (objectives/wishart_spectral.hpp, precision_closed_form), with the l retained eigenvalues and
//      tr Gamma = tr L + n gamma. Having dropped the null vector, X is a stationary point of the
//      Wishart precision objective (in X and beta), not its minimum, which would keep it.
//
// Steps 2 and the classical coordinates are the `le` method's moment (laplacian_moment); steps 3-5
// are the generic spectral fit of a precision moment (spectral_fit.hpp).
//
// The classical Laplacian-eigenmaps coordinates come back too (`embedding`): the retained
// eigenvectors of L for the unnormalised Laplacian; for the normalised one, D^-1/2 U_l, the
// generalised eigenvectors of L_rw v = lambda v (L v = lambda D v), which is exactly what
// scikit-learn's SpectralEmbedding returns up to each column's scale and sign.
#include <functional>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/laplacian.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/objectives/wishart_noise.hpp"
#include "gplvm/objectives/wishart_spectral.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/petsc/symmetric_eigensolver.hpp"
#include "gplvm/probdr/moment.hpp"

namespace gplvm {

struct LaplacianEigenmapsOptions {
  Index neighbours = 10;  // k of the k-NN graph
  Index latent_dim = 2;   // l
  LaplacianKind laplacian = LaplacianKind::symmetric;
  double regularisation = 1e-3;  // gamma > 0 (the objective is unbounded below without it)
  WishartNoise noise = WishartNoise::estimated();
  double tolerance = 1e-12;  // the eigensolver's (see symmetric_eigensolver.hpp)
  std::function<void(const EigenProgress&)> progress;
};

struct LaplacianEigenmapsFit {
  WishartOptimum optimum;           // latents: this rank's rows; eigenvalues: the l retained of Gamma
  Matrix embedding;                 // the classical coordinates (see above), this rank's rows
  double dropped_eigenvalue = 0.0;  // of Gamma: gamma, to the solver's tolerance
  double trace = 0.0;               // tr Gamma
  Index iterations = 0;             // the eigensolver's restarts
};

// Collective; needs a PetscSession. `local_data` is this rank's rows (RowPartition split).
// InputError (key "probdr.precision_regularisation") unless gamma > 0; (key "graph.k") when the graph
// has more than one connected component (L's null space is then not one vector); as spectral_fit
// otherwise.
LaplacianEigenmapsFit laplacian_eigenmaps_fit(const DataRef& local_data,
                                              const LaplacianEigenmapsOptions& options,
                                              const Communicator& comm);

// The same from a given symmetric graph (steps 2-5); `options.neighbours` is not used.
LaplacianEigenmapsFit laplacian_eigenmaps_fit(const SparseGraph& graph,
                                              const LaplacianEigenmapsOptions& options,
                                              const Communicator& comm);

// Step 2 as a ProbDR moment: Gamma_hat = L of the symmetric `graph`, kept as a PETSc matrix, with one
// null vector and the classical coordinates above. Collective. InputError (key "graph.laplacian")
// for the random-walk Laplacian; (key "graph.k") when the graph has more than one component.
MomentEstimate laplacian_moment(const SparseGraph& graph, LaplacianKind kind, const Communicator& comm);

// The binary union k-NN graph of step 1.
SparseGraph binary_knn_graph(const DataRef& local_data, Index neighbours, const Communicator& comm);

}  // namespace gplvm

#pragma once
// Graph Laplacians of a symmetric weighted graph W as distributed PETSc matrices (MATMPIAIJ, each
// rank owning the rows of its vertices, as RowPartition splits them), with D = diag(row sums of W):
//   unnormalised   L = D - W
//   random_walk    L = I - D^-1 W
//   symmetric      L = I - D^-1/2 W D^-1/2   (eigenvalues in [0, 2])
// A self-loop w_ii, should a graph have one, counts towards d_i and is subtracted on the diagonal.
#include <string>

#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/petsc/petsc_matrix.hpp"

namespace gplvm {

enum class LaplacianKind { unnormalised, random_walk, symmetric };

// By name ("unnormalised", "random_walk", "symmetric"); InputError naming `key` otherwise.
LaplacianKind parse_laplacian(const std::string& name, const std::string& key = "graph.laplacian");

// The Laplacian of `graph` (collective; needs a PetscSession). A vertex of degree zero (no edge, or
// only zero weights) is an InputError naming the lowest such vertex, on every rank.
MatHandle graph_laplacian(const SparseGraph& graph, LaplacianKind kind, const Communicator& comm);

}  // namespace gplvm

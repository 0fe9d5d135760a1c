#pragma once
// The neighbourhood graph LL-LVM is conditioned on (docs/math/lllvm.md, "The graph"): a binary
// symmetric graph G without self-loops, its Laplacian L = D - G and its signless Laplacian
// P = D + G, held whole (every rank the same) as sparse matrices.
//
// LL-LVM needs a connected graph: a disconnected one leaves the latent positions of each component
// free to drift apart (L has one null vector per component) and makes the bound's log-determinants
// wrong. Every construction here checks it and names the number of components otherwise.
#include <Eigen/SparseCore>
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

using SparseMatrix = Eigen::SparseMatrix<double>;

struct NeighbourhoodGraph {
  SparseMatrix adjacency;  // G: eta_ij in {0, 1}, symmetric, zero diagonal
  SparseMatrix laplacian;  // L = diag(G 1) - G
  SparseMatrix signless;   // P = diag(G 1) + G
  Index size() const noexcept { return adjacency.rows(); }
  Index edge_count() const noexcept { return adjacency.nonZeros() / 2; }
};

// What "k" counts. `neighbours`: each point's k nearest other points (true k-NN). `including_self`:
// k points including the point itself, i.e. its k - 1 nearest others, the convention of the LL-LVM
// authors' published experiments (their "k = 9" on the swiss roll is 8-NN). Both are then made
// symmetric by the union of edges.
enum class NeighbourCount { neighbours, including_self };

// By name ("neighbours", "including_self"); InputError naming `key` otherwise.
NeighbourCount parse_neighbour_count(const std::string& name, const std::string& key = "lllvm.k_counts");

// From the whole graph and its Laplacian (every rank passes the same). InputError (key "graph") if
// G is not square, binary, symmetric and free of self-loops, or L is not D - G; InputError (key
// graph.k, value the number of components) if G is not connected.
NeighbourhoodGraph neighbourhood_graph(SparseMatrix adjacency, SparseMatrix laplacian);

// From a symmetric binary graph distributed by rows (graph/ layer): its Laplacian from graph/'s
// graph_laplacian, both gathered to every rank (collective; needs a PetscSession).
NeighbourhoodGraph neighbourhood_graph(const SparseGraph& graph, const Communicator& comm);

// The union-symmetrised k-NN graph of the rows (exact Euclidean neighbours from graph/), as above
// (collective; rows split over the ranks as RowPartition splits them). k is checked against the
// row count naming `key`.
NeighbourhoodGraph knn_neighbourhood_graph(const DataRef& local_rows, Index k, NeighbourCount count,
                                           const Communicator& comm, const std::string& key = "graph.k");

}  // namespace gplvm

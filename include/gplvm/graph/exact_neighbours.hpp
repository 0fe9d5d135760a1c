#pragma once
// Exact k nearest neighbours by Euclidean distance.
//
// Distances are computed as sqrt(max(0, ||x||^2 + ||y||^2 - 2 x.y)), blocked, with every entry a
// function of its two rows alone, so the result (indices and distances) is the same bit for bit at
// any rank count. The product form loses relative accuracy for pairs much closer than their norms
// (centre data far from the origin first). Ties are broken by the lower global index (KnnGraph);
// exact duplicates are neighbours at distance 0.
#include <string>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/knn_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// The k nearest other rows of each local row among all rows of all ranks (collective). The rows are
// split over the ranks as RowPartition splits them. Each rank's rows travel once around a ring of
// the ranks (P - 1 sendrecv shifts) and meet every other rank's in tiles, so a rank holds its own
// rows, one visiting block and a (local rows x 256) tile of distances: never n x n.
// Input errors (name the key): k < 1 or k >= n (`key`), a NaN or Inf entry (the row), rows not
// split as RowPartition splits them; every rank throws the same one.
KnnGraph exact_neighbours(const DataRef& local, Index k, const Communicator& comm,
                          const std::string& key = "graph.k");

// Serial: the k nearest reference rows of each query row (indices are reference rows; nothing is
// excluded, a query equal to a reference row has it at distance 0). KnnGraph's num_rows is the
// number of reference rows, first_row 0.
KnnGraph query_neighbours(const DataRef& reference, const DataRef& queries, Index k,
                          const std::string& key = "k");

// Serial: the k nearest other points of each point by a given symmetric distance matrix (geodesic
// distances on a manifold), ties by the lower index, the point itself left out.
KnnGraph neighbours_from_distances(const ConstMatrixRef& distances, Index k, const std::string& key = "k");

}  // namespace gplvm

#pragma once
// Landmark Isomap (de Silva and Tenenbaum 2003) as a low-rank ProbDR covariance moment: geodesic
// distances from m landmarks only (n x m, never n x n), classical MDS of the landmarks, and every
// point placed by distance-based triangulation against them (docs/math/probdr.md, "Isomap").
//
// With Delta (m x m) the landmarks' squared geodesic distances, B = -1/2 H Delta H = V Lambda V^T
// and delta_a the squared distances of point a to the landmarks, point a's coordinates are
//
//   f_a = -1/2 Lambda^{-1/2} V^T (delta_a - mean of Delta's rows),
//
// over the r leading landmark eigenpairs. F F^T is a rank-r (truncated) Nystrom approximation of the
// geodesic Gram matrix and equals its rank-r truncation when the landmarks are all the points; its l
// leading eigenvectors are the principal axes of the triangulated embedding. Isomap takes r = l + 1
// (docs/math/probdr.md, "Isomap", says why not r = l and not every positive eigenpair).
#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

// m distinct vertices of n, ascending: the first m of a Fisher-Yates shuffle of 0..n-1 driven by
// std::mt19937_64(seed) (each draw reduced modulo the remaining count), so the same on every rank
// and at any rank count. InputError (key probdr.landmarks) unless 1 <= m <= n.
std::vector<std::int64_t> choose_landmarks(std::uint64_t n, Index m, std::uint64_t seed);

// The triangulation of the leading r landmark eigenpairs: f = (delta - mean) projection, with
// projection = -1/2 V_r Lambda_r^{-1/2} (m x r) and mean the row means of Delta (m).
struct LandmarkTriangulation {
  Matrix projection;
  Vector mean;
  RowMatrix place(const RowMatrix& squared_distances) const {
    return (squared_distances.rowwise() - mean.transpose()) * projection;
  }
};

struct LandmarkIsomap {
  LandmarkTriangulation triangulation;
  RowMatrix local_distances;  // this rank's vertices x landmarks: geodesic distances (not squared)
  RowMatrix local_factor;     // this rank's rows of F
};

// The whole computation below, with what a new point's placement needs (collective).
LandmarkIsomap landmark_isomap(const SparseGraph& graph, const std::vector<std::int64_t>& landmarks,
                               Index rank, const Communicator& comm);

// This rank's rows of F (n x r) on a connected graph with edge lengths (collective: Dijkstra from the
// landmarks, split over the ranks, then one alltoallv and one allreduce of m^2 doubles). InputError
// (key probdr.landmarks) when fewer than r landmark eigenvalues exceed 1e-10 lambda_1 (lambda^{-1/2}
// would amplify rounding).
RowMatrix landmark_isomap_factor(const SparseGraph& graph, const std::vector<std::int64_t>& landmarks,
                                 Index rank, const Communicator& comm);

}  // namespace gplvm

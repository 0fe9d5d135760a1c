#pragma once
// Graph geodesics: a discrete approximation of the expected metric's shortest paths, which starts
// the spline solver near the global optimum (docs/math/geometry.md, "Graph geodesics"). Vertices
// are a regular grid over the latents' box (any Q; 3^Q - 1 neighbours each, diagonals included) or
// the latents themselves joined to their k nearest neighbours (for larger Q, where a grid is too
// big). An edge's length is the expected length of the straight segment between its ends, the
// curve energy's own discretisation with two nodes (geometry/curve_energy.hpp):
//   sqrt(|mu_u - mu_v|^2 + D (s_uu + s_vv - 2 s_uv)).
// The posterior moments of the vertices are computed split over the ranks by rows and gathered, so
// every rank holds the same graph; a path is then found by Dijkstra (graph/shortest_paths.hpp) with
// the two end points linked to their nearest vertices.
#include <string>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/geometry/latent_chart.hpp"
#include "gplvm/graph/sparse_graph.hpp"
#include "gplvm/models/gp_posterior.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct GeodesicGraphOptions {
  std::string kind = "auto";  // "grid", "knn", or "auto": a grid for Q <= 3, else knn
  Index resolution = 0;       // grid points per coordinate; 0: 200 (Q = 1), 48 (Q = 2), 16 (Q = 3)
  double padding = 0.1;       // the grid's box: the latents' box grown by this fraction of its width
  Index k = 10;               // knn: neighbours of each latent
};

// The posterior summaries of points that the expected length of a segment between two of them needs.
struct PointMoments {
  Matrix points;    // n x Q
  Matrix mean;      // n x D
  Matrix whitened;  // M x n: L^{-1} k(Z, X)
  Matrix retained;  // r x n: R^T k(Z, X) (0 rows when the posterior keeps no spread)
  Vector prior;     // k(x, x)
};
PointMoments point_moments(const GpPosterior& posterior, const ConstMatrixRef& X);
// e = E|f(a_i) - f(b_j)|^2 of the noise-free decoder.
double segment_energy(const GpPosterior& posterior, const PointMoments& a, Index i, const PointMoments& b,
                      Index j);

struct GraphPath {
  Matrix points;  // the path's vertices, from the start to the end point
  Vector arc;     // cumulative expected length along it, from 0
};

class GeodesicGraph {
 public:
  // Collective. `latents` (replicated, in the chart's coordinates) fix the grid's box or are the knn
  // vertices. Keeps references to the posterior and the chart (null: the identity of R^Q).
  GeodesicGraph(const GpPosterior& posterior, const ConstMatrixRef& latents,
                const GeodesicGraphOptions& options, const Communicator& comm,
                const LatentChart* chart = nullptr);

  const std::string& kind() const noexcept { return kind_; }
  const Matrix& vertices() const noexcept { return vertices_; }     // chart coordinates
  std::size_t num_edges() const noexcept { return edges_.size(); }  // directed: each way once

  // Serial: the shortest path from `from` to `to` (Q chart coordinates each), each linked to its `links`
  // nearest vertices (3^Q for a grid, k for knn).
  GraphPath path(const Vector& from, const Vector& to) const;

 private:
  const GpPosterior& posterior_;
  const LatentChart* chart_;
  std::string kind_;
  Index links_ = 0;
  Matrix vertices_;       // chart coordinates
  PointMoments moments_;  // at the vertices' points
  std::vector<Edge> edges_;
};

}  // namespace gplvm

#include "gplvm/geometry/geodesic_graph.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/geometry/latent_grid.hpp"
#include "gplvm/graph/exact_neighbours.hpp"
#include "gplvm/graph/shortest_paths.hpp"
#include "gplvm/parallel/row_partition.hpp"

namespace gplvm {
namespace {

Index default_resolution(Index q) {
  return q == 1 ? 200 : q == 2 ? 48 : 16;
}

std::string graph_kind(const GeodesicGraphOptions& o, Index q) {
  if (o.kind == "auto") return q <= 3 ? "grid" : "knn";
  require(o.kind == "grid" || o.kind == "knn", "unknown geodesic graph (grid or knn)",
          {"", "--graph", o.kind});
  require(o.kind == "knn" || q <= 3, "a grid graph is for at most 3 latent dimensions; use knn",
          {"", "--graph", o.kind + " with Q = " + std::to_string(q)});
  return o.kind;
}

// Each grid vertex joined to its 3^Q - 1 neighbours (each undirected pair once, u < v).
std::vector<std::pair<Index, Index>> grid_pairs(Index resolution, Index q) {
  const auto count = static_cast<Index>(std::pow(resolution, q));
  const auto offsets = static_cast<Index>(std::pow(3, q));
  std::vector<std::pair<Index, Index>> pairs;
  for (Index v = 0; v < count; ++v)
    for (Index o = 0; o < offsets; ++o) {
      Index w = 0, stride = 1, rest_v = v, rest_o = o;
      bool inside = true;
      for (Index c = 0; c < q; ++c, rest_v /= resolution, rest_o /= 3, stride *= resolution) {
        const Index coordinate = rest_v % resolution + rest_o % 3 - 1;
        inside = inside && coordinate >= 0 && coordinate < resolution;
        w += coordinate * stride;
      }
      if (inside && w > v) pairs.emplace_back(v, w);
    }
  return pairs;
}

std::vector<std::pair<Index, Index>> knn_pairs(const Matrix& points, Index k) {
  require(k >= 1 && k < points.rows(),
          "the geodesic graph's k must be at least 1 and below the number of latents",
          {"", "--k", std::to_string(k)});
  const RowMatrix rows = points;
  const KnnGraph g = query_neighbours(rows, rows, k + 1, "--k");
  std::vector<std::pair<Index, Index>> pairs;
  for (Index u = 0; u < g.local_rows(); ++u)
    for (Index j = 0; j < g.k; ++j) {
      const Index v = g.neighbours(u, j);
      if (v != u) pairs.emplace_back(std::min(u, v), std::max(u, v));
    }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

// The moments of every point on every rank, computed split over the ranks in fixed blocks of
// kMomentBlock points: each block's arithmetic (its triangular solve included) is then the same
// whichever rank does it, so the graph, and the geodesics started from it, are the same bit for bit
// at any number of ranks.
constexpr Index kMomentBlock = 64;

PointMoments gathered_moments(const GpPosterior& posterior, const Matrix& points, const Communicator& comm) {
  const Index n = points.rows(), blocks = (n + kMomentBlock - 1) / kMomentBlock;
  const RowPartition split(static_cast<std::uint64_t>(blocks), comm.size());
  const auto first = static_cast<Index>(split.begin(comm.rank()));
  const auto last = first + static_cast<Index>(split.count(comm.rank()));
  const Index begin = std::min(first * kMomentBlock, n), end = std::min(last * kMomentBlock, n);
  const Index retained_rows =
      posterior.spread_root_transposed() ? posterior.spread_root_transposed()->rows() : 0;
  PointMoments local;
  local.mean.resize(end - begin, posterior.output_dim());
  local.whitened.resize(posterior.num_conditioning(), end - begin);
  local.retained.resize(retained_rows, end - begin);
  local.prior.resize(end - begin);
  for (Index b = begin; b < end; b += kMomentBlock) {
    const Index size = std::min(kMomentBlock, end - b);
    const PointMoments block = point_moments(posterior, points.middleRows(b, size));
    local.mean.middleRows(b - begin, size) = block.mean;
    local.whitened.middleCols(b - begin, size) = block.whitened;
    if (retained_rows > 0) local.retained.middleCols(b - begin, size) = block.retained;
    local.prior.segment(b - begin, size) = block.prior;
  }
  PointMoments all;
  all.points = points;
  all.mean = comm.allgather_rows(ConstMatrixRef(local.mean));
  all.whitened = comm.allgather_columns(local.whitened);
  all.retained = retained_rows > 0 ? comm.allgather_columns(local.retained) : Matrix();
  all.prior = comm.allgather_rows(ConstMatrixRef(Matrix(local.prior)));
  return all;
}

}  // namespace

PointMoments point_moments(const GpPosterior& posterior, const ConstMatrixRef& X) {
  PointMoments m;
  m.points = X;
  Matrix K;
  posterior.kernel().cross(posterior.inputs(), X, K);
  m.mean = K.transpose() * posterior.weights();
  if (const Matrix* spread = posterior.spread_root_transposed()) m.retained = *spread * K;
  m.whitened = std::move(K);
  posterior.factor().solve_lower_in_place(m.whitened);
  posterior.kernel().diagonal(X, m.prior);
  return m;
}

double segment_energy(const GpPosterior& posterior, const PointMoments& a, Index i, const PointMoments& b,
                      Index j) {
  Matrix k;
  posterior.kernel().cross(a.points.row(i), b.points.row(j), k);
  const auto variance = [](const PointMoments& p, Index r) {
    double v = p.prior[r] - p.whitened.col(r).squaredNorm();
    if (p.retained.rows() > 0) v += p.retained.col(r).squaredNorm();
    return v;
  };
  double covariance = k(0, 0) - a.whitened.col(i).dot(b.whitened.col(j));
  if (a.retained.rows() > 0) covariance += a.retained.col(i).dot(b.retained.col(j));
  const auto D = static_cast<double>(posterior.output_dim());
  const double e = (a.mean.row(i) - b.mean.row(j)).squaredNorm() +
                   D * (variance(a, i) + variance(b, j) - 2.0 * covariance);
  return std::max(e, 0.0);
}

GeodesicGraph::GeodesicGraph(const GpPosterior& posterior, const ConstMatrixRef& latents,
                             const GeodesicGraphOptions& options, const Communicator& comm,
                             const LatentChart* chart)
    : posterior_(posterior), chart_(chart), kind_(graph_kind(options, latents.cols())) {
  const Index q = latents.cols();
  require(q == (chart ? chart->dim() : posterior.kernel().input_dim()),
          "latents for the geodesic graph have the wrong dimension", {"", "latent_dim", std::to_string(q)});
  std::vector<std::pair<Index, Index>> pairs;
  if (kind_ == "grid") {
    const Index resolution = options.resolution > 0 ? options.resolution : default_resolution(q);
    require(resolution >= 2, "a grid needs at least 2 points per coordinate",
            {"", "--resolution", std::to_string(resolution)});
    vertices_ = latent_grid(latents, resolution, options.padding);
    pairs = grid_pairs(resolution, q);
    links_ = static_cast<Index>(std::pow(3, q));
  } else {
    vertices_ = latents;
    pairs = knn_pairs(vertices_, options.k);
    links_ = options.k;
  }
  moments_ = gathered_moments(posterior, chart ? chart->points(vertices_) : vertices_, comm);
  edges_.reserve(2 * pairs.size());
  for (const auto& [u, v] : pairs) {
    const double length = std::sqrt(segment_energy(posterior, moments_, u, moments_, v));
    edges_.push_back({u, v, length});
    edges_.push_back({v, u, length});
  }
}

GraphPath GeodesicGraph::path(const Vector& from, const Vector& to) const {
  const Index n = vertices_.rows();
  Matrix ends(2, from.size());
  ends.row(0) = from.transpose();
  ends.row(1) = to.transpose();
  const PointMoments end_moments = point_moments(posterior_, chart_ ? chart_->points(ends) : ends);
  const KnnGraph near = query_neighbours(RowMatrix(vertices_), RowMatrix(ends), std::min(links_, n), "--k");
  std::vector<Edge> edges = edges_;
  for (Index e = 0; e < 2; ++e)
    for (Index j = 0; j < near.k; ++j) {
      const Index v = near.neighbours(e, j);
      const double length = std::sqrt(segment_energy(posterior_, end_moments, e, moments_, v));
      edges.push_back({n + e, v, length});
      edges.push_back({v, n + e, length});
    }
  const SparseGraph graph = graph_from_edges(static_cast<std::uint64_t>(n + 2), 0, n + 2, std::move(edges));
  const std::vector<std::int64_t> vertices = shortest_path(graph, n, n + 1);
  GraphPath out;
  out.points.resize(static_cast<Index>(vertices.size()), from.size());
  out.arc = Vector::Zero(out.points.rows());
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    const auto v = static_cast<Index>(vertices[i]);
    out.points.row(static_cast<Index>(i)) = v < n ? Matrix(vertices_.row(v)) : Matrix(ends.row(v - n));
  }
  for (Index i = 1; i < out.points.rows(); ++i) {
    const auto v = static_cast<Index>(vertices[i]), u = static_cast<Index>(vertices[i - 1]);
    const PointMoments& a = u < n ? moments_ : end_moments;
    const PointMoments& b = v < n ? moments_ : end_moments;
    out.arc[i] =
        out.arc[i - 1] + std::sqrt(segment_energy(posterior_, a, u < n ? u : u - n, b, v < n ? v : v - n));
  }
  return out;
}

}  // namespace gplvm

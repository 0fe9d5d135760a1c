#include "gplvm/probdr/landmark_isomap.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <random>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/graph/shortest_paths.hpp"

namespace gplvm {
namespace {

constexpr double kRelativeEigenvalueFloor = 1e-10;

// The landmarks' squared distances to each other (m x m, every rank): each rank fills the rows of
// the landmarks it owns, one allreduce adds them. Averaged with the transpose: Dijkstra from a to b
// and from b to a may add the same path's lengths in different orders.
Matrix landmark_squared_distances(const RowMatrix& squared, std::uint64_t first_row,
                                  const std::vector<std::int64_t>& landmarks, const Communicator& comm) {
  const auto m = static_cast<Index>(landmarks.size());
  Matrix among = Matrix::Zero(m, m);
  for (Index a = 0; a < m; ++a) {
    const std::int64_t local = landmarks[static_cast<std::size_t>(a)] - static_cast<std::int64_t>(first_row);
    if (local >= 0 && local < squared.rows()) among.row(a) = squared.row(local);
  }
  comm.allreduce_sum(among);
  return 0.5 * (among + among.transpose());
}

}  // namespace

std::vector<std::int64_t> choose_landmarks(std::uint64_t n, Index m, std::uint64_t seed) {
  require(m >= 1 && static_cast<std::uint64_t>(m) <= n,
          "probdr.landmarks must be between 1 and the number of rows (" + std::to_string(n) + ")",
          {"", "probdr.landmarks", std::to_string(m)});
  std::vector<std::int64_t> order(n);
  for (std::uint64_t i = 0; i < n; ++i) order[i] = static_cast<std::int64_t>(i);
  std::mt19937_64 engine(seed);
  for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(m); ++i)
    std::swap(order[i], order[i + engine() % (n - i)]);
  order.resize(static_cast<std::size_t>(m));
  std::sort(order.begin(), order.end());
  return order;
}

LandmarkIsomap landmark_isomap(const SparseGraph& graph, const std::vector<std::int64_t>& landmarks,
                               Index rank, const Communicator& comm) {
  LandmarkIsomap out;
  out.local_distances = distances_by_vertex(shortest_paths(graph, landmarks, comm), graph.num_rows, comm);
  const RowMatrix squared = out.local_distances.array().square();
  const Matrix among = landmark_squared_distances(squared, graph.first_row, landmarks, comm);
  // Classical MDS of the landmarks: B = -1/2 H Delta H (the same on every rank, from the same bits).
  const Vector mean = among.colwise().mean();
  const Matrix centred = among.rowwise() - mean.transpose();
  const Matrix b = -0.5 * (centred.colwise() - centred.rowwise().mean());
  const Eigen::SelfAdjointEigenSolver<Matrix> eigen(0.5 * (b + b.transpose()));
  const Vector values = eigen.eigenvalues().reverse();
  const Matrix vectors = eigen.eigenvectors().rowwise().reverse();
  Index positive = 0;
  while (positive < values.size() && values[positive] > kRelativeEigenvalueFloor * values[0]) ++positive;
  require(positive >= rank,
          "landmark Isomap: the landmarks' Gram matrix has " + std::to_string(positive) +
              " positive eigenvalues, fewer than the " + std::to_string(rank) +
              " needed; raise probdr.landmarks",
          {"", "probdr.landmarks", std::to_string(landmarks.size())});
  // Triangulation: f_a = -1/2 Lambda^{-1/2} V^T (delta_a - mean), for this rank's points a.
  const Vector scale = values.head(rank).cwiseSqrt().cwiseInverse();
  out.triangulation.mean = mean;
  out.triangulation.projection = -0.5 * vectors.leftCols(rank) * scale.asDiagonal();
  out.local_factor = out.triangulation.place(squared);
  return out;
}

RowMatrix landmark_isomap_factor(const SparseGraph& graph, const std::vector<std::int64_t>& landmarks,
                                 Index rank, const Communicator& comm) {
  return landmark_isomap(graph, landmarks, rank, comm).local_factor;
}

}  // namespace gplvm

#include "gplvm/probdr/exact_neighbour_objective.hpp"

#include <cmath>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

// UMAP's pairs closer than this (squared distance) count as this far apart: log(1 - w) and the
// gradient's 1 / d^2 have no finite value at coincident points.
constexpr double kMinSquaredDistance = 1e-12;

double squared_distance(const RowMatrix& a, Index i, const RowMatrix& b, Index j) {
  return (a.row(i) - b.row(j)).squaredNorm();
}

double x_log_x(double x) {
  return x > 0 ? x * std::log(x) : 0.0;
}

// Walks one row's edges (ascending columns) alongside every column j of the row: the affinity of
// (i, j), zero where the row has no edge.
class RowAffinities {
 public:
  RowAffinities(const SparseGraph& g, Index i) : g_(g), e_(g.row_begin(i)), end_(g.row_end(i)) {}
  double at(std::int64_t j) {
    while (e_ < end_ && g_.columns[static_cast<std::size_t>(e_)] < j) ++e_;
    return e_ < end_ && g_.columns[static_cast<std::size_t>(e_)] == j
               ? g_.weights[static_cast<std::size_t>(e_)]
               : 0.0;
  }

 private:
  const SparseGraph& g_;
  std::int64_t e_, end_;
};

NeighbourEvaluation tsne(const RowMatrix& y, const RowMatrix& all, const SparseGraph& p, double alpha,
                         double exaggeration, const Communicator& comm) {
  const Index rows = y.rows(), n = all.rows();
  const std::int64_t first = static_cast<std::int64_t>(p.first_row);
  auto kernel = [alpha](double d2) {
    return alpha == 1.0 ? 1.0 / (1.0 + d2) : std::pow(1.0 + d2 / alpha, -alpha);
  };
  double z = 0.0;
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < n; ++j)
      if (j != first + i) z += kernel(squared_distance(y, i, all, j));
  z = comm.allreduce_sum(z);
  NeighbourEvaluation e;
  e.gradient = RowMatrix::Zero(rows, y.cols());
  double local = 0.0;  // sum p log p - sum p log w + (sum p) log Z, over this rank's rows
  for (Index i = 0; i < rows; ++i) {
    RowAffinities row(p, i);
    for (Index j = 0; j < n; ++j) {
      if (j == first + i) continue;
      const double pij = row.at(j), w = kernel(squared_distance(y, i, all, j));
      if (pij > 0) local += x_log_x(pij) - pij * std::log(w) + pij * std::log(z);
      const double w_root = alpha == 1.0 ? w : std::pow(w, 1.0 / alpha);
      e.gradient.row(i) += 4.0 * (exaggeration * pij - w / z) * w_root * (y.row(i) - all.row(j));
    }
  }
  e.kl = comm.allreduce_sum(local);
  return e;
}

NeighbourEvaluation sne(const RowMatrix& y, const RowMatrix& all, const SparseGraph& v, double exaggeration,
                        const Communicator& comm) {
  const Index rows = y.rows(), n = all.rows();
  const std::int64_t first = static_cast<std::int64_t>(v.first_row);
  // S_i = sum_{k != i} exp(-d_ik^2), every row's (w_{i|j} needs row j's).
  std::vector<double> local_sums(static_cast<std::size_t>(rows), 0.0);
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < n; ++j)
      if (j != first + i)
        local_sums[static_cast<std::size_t>(i)] += std::exp(-squared_distance(y, i, all, j));
  const std::vector<double> sums = comm.allgatherv(local_sums);
  const SparseGraph vt = transpose(v, comm);  // row i: v_{i|j} for the j that list i
  NeighbourEvaluation e;
  e.gradient = RowMatrix::Zero(rows, y.cols());
  double local = 0.0;
  for (Index i = 0; i < rows; ++i) {
    RowAffinities out(v, i), in(vt, i);
    const double si = sums[static_cast<std::size_t>(first + i)];
    double row_mass = 0.0;
    for (Index j = 0; j < n; ++j) {
      if (j == first + i) continue;
      const double d2 = squared_distance(y, i, all, j), vij = out.at(j), vji = in.at(j);
      const double wij = std::exp(-d2) / si, wji = std::exp(-d2) / sums[static_cast<std::size_t>(j)];
      local += x_log_x(vij) + vij * d2;
      row_mass += vij;
      e.gradient.row(i) += 2.0 * (exaggeration * (vij + vji) - wij - wji) * (y.row(i) - all.row(j));
    }
    local += row_mass * std::log(si);
  }
  e.kl = comm.allreduce_sum(local);
  return e;
}

NeighbourEvaluation umap(const RowMatrix& y, const RowMatrix& all, const SparseGraph& v, const UmapCurve& c,
                         double exaggeration, const Communicator& comm) {
  const Index rows = y.rows(), n = all.rows();
  const std::int64_t first = static_cast<std::int64_t>(v.first_row);
  NeighbourEvaluation e;
  e.gradient = RowMatrix::Zero(rows, y.cols());
  double local = 0.0;
  for (Index i = 0; i < rows; ++i) {
    RowAffinities row(v, i);
    for (Index j = 0; j < n; ++j) {
      if (j == first + i) continue;
      const double d2 = std::max(squared_distance(y, i, all, j), kMinSquaredDistance);
      const double vij = row.at(j), w = 1.0 / (1.0 + c.a * std::pow(d2, c.b));
      // log(1 - w) = log(a d^{2b} w), finite and accurate where w is near 1.
      const double log_w = std::log(w), log_one_minus_w = std::log(c.a) + c.b * std::log(d2) + log_w;
      local += x_log_x(vij) + x_log_x(1.0 - vij) - vij * log_w - (1.0 - vij) * log_one_minus_w;
      e.gradient.row(i) += 4.0 * c.b * (exaggeration * vij - w) / d2 * (y.row(i) - all.row(j));
    }
  }
  e.kl = comm.allreduce_sum(local);
  return e;
}

}  // namespace

NeighbourEvaluation exact_neighbour_objective(const RowMatrix& y, const SparseGraph& affinities,
                                              const NeighbourKernel& kernel, double exaggeration,
                                              const Communicator& comm) {
  if (y.rows() != affinities.local_rows())
    throw Error("exact_neighbour_objective: the embedding's rows and the affinities' rows differ");
  const RowMatrix all = comm.allgather_rows(DataRef(y));
  switch (kernel.objective) {
    case NeighbourObjective::sne:
      return sne(y, all, affinities, exaggeration, comm);
    case NeighbourObjective::tsne:
      return tsne(y, all, affinities, kernel.alpha, exaggeration, comm);
    case NeighbourObjective::umap:
      return umap(y, all, affinities, kernel.curve, exaggeration, comm);
  }
  throw Error("exact_neighbour_objective: unknown objective");
}

}  // namespace gplvm

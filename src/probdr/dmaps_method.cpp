// Diffusion maps (Coifman and Lafon 2006) as a ProbDR covariance moment, kept sparse in PETSc:
//
//   K       = Gaussian weights exp(-|y_i - y_j|^2 / eps) on the symmetrised k-NN graph (graph.k,
//             graph.search, graph.symmetrize), plus K_ii = 1 (each point is its own neighbour, as
//             in a dense kernel); eps = probdr.dmaps_bandwidth, 0: the median squared distance of a
//             point to one of its k nearest neighbours (the n k directed k-NN distances, NumPy's median)
//   K_alpha = Q^-alpha K Q^-alpha with Q = diag(K 1)              (probdr.dmaps_alpha, default 1)
//   M       = D^-1/2 K_alpha D^-1/2 with D = diag(K_alpha 1): symmetric, P = D^-1 K_alpha's conjugate
//   S_hat   = M^t - phi0 phi0^T, phi0 = D^{1/2} 1 / |D^{1/2} 1|   (t = probdr.dmaps_time, an integer)
//
// phi0 is M's eigenvector of eigenvalue 1 (the stationary distribution's root), which carries no
// embedding; removing it exactly leaves its eigenvalue 0 among the discarded ones. The eigenvalues of
// S_hat are then lambda^t for the other eigenvectors phi of M, and the classical coordinates are the
// diffusion coordinates lambda^t psi with psi = D^-1/2 phi, P's right eigenvectors.
#include <petscmat.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "builtin_methods.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/graph/connected_components.hpp"
#include "gplvm/graph/neighbour_search.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "gplvm/petsc/petsc_error.hpp"
#include "gplvm/probdr/petsc_covariance.hpp"

namespace gplvm {
namespace {

void require_settings(const ProbdrSettings& settings) {
  const double t = settings.dmaps_time;
  require(std::isfinite(t) && t >= 1.0 && t == std::floor(t) && t <= 64.0,
          "probdr.dmaps_time must be a whole number of steps between 1 and 64 (M^t is formed as a sparse "
          "product)",
          {"", "probdr.dmaps_time", std::to_string(t)});
  require(std::isfinite(settings.dmaps_alpha), "probdr.dmaps_alpha must be finite",
          {"", "probdr.dmaps_alpha", std::to_string(settings.dmaps_alpha)});
  require(std::isfinite(settings.dmaps_bandwidth) && settings.dmaps_bandwidth >= 0.0,
          "probdr.dmaps_bandwidth must be 0 (the median squared k-NN distance) or positive",
          {"", "probdr.dmaps_bandwidth", std::to_string(settings.dmaps_bandwidth)});
}

// NumPy's median of every rank's k-NN squared distances (all n k of them, gathered).
double median_squared_distance(const KnnGraph& knn, const Communicator& comm) {
  const RowMatrix squared = knn.distances.array().square();
  std::vector<double> all =
      comm.allgatherv(std::vector<double>(squared.data(), squared.data() + squared.size()));
  const std::size_t half = all.size() / 2;
  std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(half), all.end());
  const double upper = all[half];
  if (all.size() % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(half)));
}

double bandwidth(const KnnGraph& knn, const ProbdrSettings& settings, const Communicator& comm) {
  if (settings.dmaps_bandwidth > 0.0) return settings.dmaps_bandwidth;
  const double eps = median_squared_distance(knn, comm);
  require(eps > 0.0, "the median squared k-NN distance is 0 (duplicate rows); set probdr.dmaps_bandwidth",
          {"", "probdr.dmaps_bandwidth", "0"});
  return eps;
}

// This rank's rows of K: the graph's Gaussian weights plus 1 on the diagonal, columns ascending.
LocalSparseRows kernel_rows(const SparseGraph& graph) {
  LocalSparseRows rows;
  rows.num_columns = static_cast<std::int64_t>(graph.num_rows);
  rows.first_row = static_cast<std::int64_t>(graph.first_row);
  for (Index i = 0; i < graph.local_rows(); ++i) {
    const std::int64_t self = rows.first_row + i;
    bool placed = false;
    for (std::int64_t e = graph.row_begin(i); e < graph.row_end(i); ++e) {
      const std::int64_t column = graph.columns[static_cast<std::size_t>(e)];
      if (!placed && column > self) {
        rows.columns.push_back(self), rows.values.push_back(1.0), placed = true;
      }
      rows.columns.push_back(column);
      rows.values.push_back(graph.weights[static_cast<std::size_t>(e)]);
    }
    if (!placed) rows.columns.push_back(self), rows.values.push_back(1.0);
    rows.row_start.push_back(static_cast<std::int64_t>(rows.columns.size()));
  }
  return rows;
}

Vector row_sums(Mat matrix) {
  VecHandle ones, sums;
  check_petsc(MatCreateVecs(matrix, ones.out(), sums.out()), "MatCreateVecs");
  check_petsc(VecSet(ones.get(), 1.0), "VecSet");
  check_petsc(MatMult(matrix, ones.get(), sums.get()), "MatMult");
  return copy_out(sums.get());
}

// K scaled on both sides by diag(scale): A <- diag(s) A diag(s) (PETSc fetches the off-rank entries).
void scale_symmetrically(Mat matrix, const Vector& local_scale) {
  const VecHandle scale = row_vector(matrix, local_scale);
  check_petsc(MatDiagonalScale(matrix, scale.get(), scale.get()), "MatDiagonalScale");
}

// M^t for t >= 2 by sparse products: its pattern is the t-step neighbourhoods, so its fill grows with t.
MatHandle power_of(const MatHandle& base, Index t) {
  MatHandle result;
  check_petsc(MatDuplicate(base.get(), MAT_COPY_VALUES, result.out()), "MatDuplicate");
  for (Index step = 1; step < t; ++step) {
    MatHandle next;
    check_petsc(MatMatMult(result.get(), base.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, next.out()),
                "MatMatMult");
    result = std::move(next);
  }
  return result;
}

MomentEstimate estimate_dmaps(const DataRef& local_data, const ProbdrSettings& settings,
                              const Communicator& comm) {
  require_settings(settings);
  const GraphSettings& g = settings.graph;
  const KnnGraph knn = nearest_neighbours(local_data, g.k, g.search, comm);
  const double eps = bandwidth(knn, settings, comm);
  const SparseGraph graph = symmetrise(knn, g.symmetrize, {EdgeWeight::heat, eps}, comm);
  // A disconnected graph has eigenvalue 1 once per component: the trivial direction is not one vector.
  require_connected(connected_components(graph, comm));

  MatHandle m = distributed_matrix(kernel_rows(graph), comm);
  scale_symmetrically(m.get(), row_sums(m.get()).array().pow(-settings.dmaps_alpha).matrix());
  const Vector degrees = row_sums(m.get());
  scale_symmetrically(m.get(), degrees.cwiseSqrt().cwiseInverse());
  const Vector root_degrees = degrees.cwiseSqrt();
  const Vector phi0 = root_degrees / std::sqrt(comm.allreduce_sum(degrees.sum()));

  const auto t = static_cast<Index>(settings.dmaps_time);
  MomentEstimate moment;
  moment.form = MomentForm::covariance;
  moment.covariance =
      std::make_unique<PetscMatrixCovariance>(comm, t == 1 ? std::move(m) : power_of(m, t), phi0, 1.0);
  // lambda^t psi: S_hat's eigenvalues are already lambda^t.
  moment.classical = [inverse_root = Vector(root_degrees.cwiseInverse())](const Matrix& vectors,
                                                                          const Vector& values) {
    return Matrix(inverse_root.asDiagonal() * vectors * values.asDiagonal());
  };
  moment.description = "diffusion maps M^t - phi0 phi0^T (t = " + std::to_string(t) +
                       ", alpha = " + std::to_string(settings.dmaps_alpha) +
                       ", eps = " + std::to_string(eps) + ") on the k = " + std::to_string(g.k) +
                       " symmetrised k-NN graph";
  return moment;
}

// The training graph's degrees the extension needs: eps, q = K 1 and d = K_alpha 1 (this rank's rows).
struct DiffusionDegrees {
  double eps = 0.0;
  RowMatrix q_and_d;  // local rows x 2
};

DiffusionDegrees diffusion_degrees(const DataRef& local_data, const ProbdrSettings& settings,
                                   const Communicator& comm) {
  const GraphSettings& g = settings.graph;
  const KnnGraph knn = nearest_neighbours(local_data, g.k, g.search, comm);
  DiffusionDegrees out;
  out.eps = bandwidth(knn, settings, comm);
  const SparseGraph graph = symmetrise(knn, g.symmetrize, {EdgeWeight::heat, out.eps}, comm);
  MatHandle m = distributed_matrix(kernel_rows(graph), comm);
  const Vector q = row_sums(m.get());
  scale_symmetrically(m.get(), q.array().pow(-settings.dmaps_alpha).matrix());
  out.q_and_d.resize(q.size(), 2);
  out.q_and_d.col(0) = q;
  out.q_and_d.col(1) = row_sums(m.get());
  return out;
}

// The Nystrom extension of one diffusion step: the new row y* joins the graph by Gaussian edges to
// its k nearest training rows, k(y*, y_i) = exp(-|y* - y_i|^2 / eps), and its own 1; q* = 1 + sum_i
// k(y*, y_i), k_alpha(y*, y_i) = k(y*, y_i) / (q*^alpha q_i^alpha), d* = q*^{-2 alpha} + sum_i
// k_alpha(y*, y_i) and M(y*, y_i) = k_alpha(y*, y_i) / sqrt(d* d_i). An eigenvector phi of M of
// eigenvalue lambda extends as phi* = sum_i M(y*, y_i) phi_i / lambda (psi* = P(y*, .) psi / lambda
// for P's right eigenvectors, times sqrt(d*)); S_hat's eigenvalues are lambda^t, so in X's frame
// x* = (sum_i M(y*, y_i) x_i) (X^T X + s2 I)^{-1/t}.
RowMatrix extend_dmaps(const OutOfSampleInputs& in, const ProbdrSettings& settings,
                       const Communicator& comm) {
  require_settings(settings);
  const DiffusionDegrees degrees = diffusion_degrees(in.training, settings, comm);
  const Index k = settings.graph.k;
  const double alpha = settings.dmaps_alpha;
  const KnnGraph near = training_neighbours(in.training, in.new_rows, k, comm);
  const RowMatrix latents = training_rows(in.training_latents, near.num_rows, near.neighbours, comm);
  const RowMatrix q_and_d = training_rows(degrees.q_and_d, near.num_rows, near.neighbours, comm);
  RowMatrix sums = RowMatrix::Zero(in.new_rows.rows(), in.training_latents.cols());
  for (Index i = 0; i < sums.rows(); ++i) {
    const Vector weights = (-near.distances.row(i).array().square() / degrees.eps).exp();
    const double q = 1.0 + weights.sum();
    Vector alpha_weights(k);
    for (Index t = 0; t < k; ++t)
      alpha_weights[t] = weights[t] / (std::pow(q, alpha) * std::pow(q_and_d(i * k + t, 0), alpha));
    const double d = std::pow(q, -2.0 * alpha) + alpha_weights.sum();
    for (Index t = 0; t < k; ++t)
      sums.row(i) += alpha_weights[t] / std::sqrt(d * q_and_d(i * k + t, 1)) * latents.row(i * k + t);
  }
  const Matrix gram = latent_gram(in.training_latents, comm);
  return sums * covariance_extension_factor(gram, in.noise, settings.dmaps_time);
}

}  // namespace

ProbdrMethod diffusion_maps_method() {
  ProbdrMethod m;
  m.name = "dmaps";
  m.summary =
      "diffusion maps: the symmetric diffusion matrix M^t, trivial direction removed, as a covariance";
  m.form = MomentForm::covariance;
  m.estimate = estimate_dmaps;
  m.uses_graph = true;
  m.extend = extend_dmaps;
  m.extension = "Nystrom extension of one diffusion step from the new row's k nearest training rows";
  return m;
}

}  // namespace gplvm

// Locally linear embedding as a ProbDR precision moment: each row's reconstruction weights from its
// k nearest neighbours (graph.k, graph.search; the neighbourhoods are directed, graph.symmetrize is
// not used), then Gamma_hat = (I - W)^T (I - W), kept sparse and distributed as a PETSc matrix.
// Its null vector is the constant one (the weights of every row sum to 1); the classical
// coordinates are the retained eigenvectors themselves (scikit-learn's standard LLE).
#include <petscmat.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "builtin_methods.hpp"
#include "gplvm/core/error.hpp"
#include "gplvm/graph/connected_components.hpp"
#include "gplvm/graph/neighbour_search.hpp"
#include "gplvm/graph/symmetrisation.hpp"
#include "gplvm/petsc/petsc_error.hpp"
#include "gplvm/probdr/petsc_precision.hpp"
#include "gplvm/parallel/remote_rows.hpp"

namespace gplvm {
namespace {

// The weights w (summing to 1) that best reconstruct y from its neighbours' rows: G w = 1 with G the
// Gram matrix of the differences to y, regularised by eps tr(G) I. With more neighbours than
// dimensions (k > D), or duplicate rows (zero differences), G is singular; the regularisation makes
// it positive definite (eps alone when tr(G) = 0: every neighbour a duplicate), as scikit-learn's.
Vector barycentre_weights(const RowMatrix& neighbours, const Eigen::RowVectorXd& y, double eps) {
  const RowMatrix differences = neighbours.rowwise() - y;
  Matrix gram = differences * differences.transpose();
  const double trace = gram.trace();
  gram.diagonal().array() += trace > 0.0 ? eps * trace : eps;
  const Vector w = gram.llt().solve(Vector::Ones(gram.rows()));
  return w / w.sum();
}

// This rank's rows of I - W: 1 on the diagonal, -w_ij on row i's neighbours, columns ascending.
LocalSparseRows identity_minus_weights(const KnnGraph& knn, const RowMatrix& weights) {
  LocalSparseRows rows;
  rows.num_columns = static_cast<std::int64_t>(knn.num_rows);
  rows.first_row = static_cast<std::int64_t>(knn.first_row);
  for (Index i = 0; i < knn.local_rows(); ++i) {
    std::vector<std::pair<std::int64_t, double>> entries{{rows.first_row + i, 1.0}};
    for (Index t = 0; t < knn.k; ++t) entries.emplace_back(knn.neighbours(i, t), -weights(i, t));
    std::sort(entries.begin(), entries.end());
    for (const auto& [column, value] : entries) {
      rows.columns.push_back(column);
      rows.values.push_back(value);
    }
    rows.row_start.push_back(static_cast<std::int64_t>(rows.columns.size()));
  }
  return rows;
}

RowMatrix lle_weights(const DataRef& local_data, const KnnGraph& knn, double eps, const Communicator& comm) {
  const std::vector<std::int64_t> wanted(knn.neighbours.data(),
                                         knn.neighbours.data() + knn.neighbours.size());
  const RowMatrix neighbour_rows = fetch_rows(local_data, knn.num_rows, wanted, comm);
  RowMatrix weights(knn.local_rows(), knn.k);
  for (Index i = 0; i < knn.local_rows(); ++i)
    weights.row(i) = barycentre_weights(neighbour_rows.middleRows(i * knn.k, knn.k), local_data.row(i), eps);
  return weights;
}

MomentEstimate estimate_lle(const DataRef& local_data, const ProbdrSettings& settings,
                            const Communicator& comm) {
  const double eps = settings.lle_regularisation;
  require(std::isfinite(eps) && eps > 0.0,
          "LLE needs probdr.lle_regularisation > 0: a neighbourhood's Gram matrix is singular when k exceeds "
          "the data's width",
          {"", "probdr.lle_regularisation", std::to_string(eps)});
  const GraphSettings& g = settings.graph;
  const KnnGraph knn = nearest_neighbours(local_data, g.k, g.search, comm);
  // Each component of the neighbourhood graph (whichever way its edges point) adds a null vector of
  // Gamma_hat (its indicator): only a connected graph leaves the constant one alone.
  require_connected(connected_components(symmetrise(knn, Symmetrisation::union_of_edges, {}, comm), comm));
  const MatHandle residual =
      distributed_matrix(identity_minus_weights(knn, lle_weights(local_data, knn, eps, comm)), comm);
  // Gamma_hat = (I - W)^T (I - W) by PETSc's sparse product, distributed by the same rows.
  MatHandle gamma;
  check_petsc(
      MatTransposeMatMult(residual.get(), residual.get(), MAT_INITIAL_MATRIX, PETSC_DEFAULT, gamma.out()),
      "MatTransposeMatMult");

  MomentEstimate moment;
  moment.form = MomentForm::precision;
  moment.precision = std::make_unique<PetscMatrixPrecision>(std::move(gamma));
  moment.null_vectors = 1;
  // The weights of each row sum to one, so (I - W) 1 = 0: the constant vector, normalised.
  moment.null_space =
      Matrix::Constant(knn.local_rows(), 1, 1.0 / std::sqrt(static_cast<double>(knn.num_rows)));
  moment.classical = [](const Matrix& vectors, const Vector&) -> Matrix { return vectors; };
  moment.description = "LLE (I - W)^T (I - W), k = " + std::to_string(g.k) +
                       " neighbours, weights regularised by " + std::to_string(eps) + " tr(G)";
  return moment;
}

// scikit-learn's LocallyLinearEmbedding.transform: the new row's reconstruction weights from its k
// nearest training rows (the same regularisation), applied to their latents. It is linear in the
// latents, so X's scale and any rotation carry over.
RowMatrix extend_lle(const OutOfSampleInputs& in, const ProbdrSettings& settings, const Communicator& comm) {
  const Index k = settings.graph.k;
  const KnnGraph near = training_neighbours(in.training, in.new_rows, k, comm);
  const RowMatrix rows = training_rows(in.training, near.num_rows, near.neighbours, comm);
  const RowMatrix latents = training_rows(in.training_latents, near.num_rows, near.neighbours, comm);
  RowMatrix out(in.new_rows.rows(), in.training_latents.cols());
  for (Index i = 0; i < out.rows(); ++i) {
    const Vector w =
        barycentre_weights(rows.middleRows(i * k, k), in.new_rows.row(i), settings.lle_regularisation);
    out.row(i) = w.transpose() * latents.middleRows(i * k, k);
  }
  return out;
}

}  // namespace

ProbdrMethod lle_method() {
  ProbdrMethod m;
  m.name = "lle";
  m.summary = "locally linear embedding: (I - W)^T (I - W) of the reconstruction weights as a precision";
  m.form = MomentForm::precision;
  m.estimate = estimate_lle;
  m.uses_graph = true;
  m.extend = extend_lle;
  m.extension =
      "the new row's reconstruction weights from its k nearest training rows, applied to their latents";
  return m;
}

}  // namespace gplvm

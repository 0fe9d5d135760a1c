#include "gplvm/probdr/graph_gp_spectrum.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/linalg/symmetric_eigen.hpp"
#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/petsc/petsc_matrix.hpp"
#include "gplvm/probdr/graph_gp_kernel.hpp"

namespace gplvm {
namespace {

void require_symmetric(const Matrix& laplacian) {
  require(laplacian.rows() == laplacian.cols() && laplacian.rows() > 0,
          "the Laplacian must be square and non-empty",
          {"", "laplacian", std::to_string(laplacian.rows()) + " x " + std::to_string(laplacian.cols())});
  require(laplacian.allFinite(), "the Laplacian has a NaN or Inf entry", {"", "laplacian"});
  const double scale = std::max(1.0, laplacian.cwiseAbs().maxCoeff());
  const double asymmetry = (laplacian - laplacian.transpose()).cwiseAbs().maxCoeff();
  require(asymmetry <= 1e-12 * scale, "the Laplacian is not symmetric",
          {"", "laplacian", "max |L - L^T| = " + std::to_string(asymmetry)});
}

}  // namespace

GraphSpectrum graph_spectrum(const Matrix& laplacian) {
  require_symmetric(laplacian);
  SymmetricEigenpairs pairs = smallest_eigenpairs(laplacian, laplacian.rows(), "graph Laplacian");
  const double floor = -1e-10 * std::max(1.0, pairs.values.maxCoeff());
  require(pairs.values.minCoeff() >= floor, "the Laplacian is not positive semi-definite",
          {"", "laplacian", "smallest eigenvalue " + std::to_string(pairs.values.minCoeff())});
  // Rounding leaves the null vectors' eigenvalues at +-1e-16 or so; a negative one would make
  // (2 nu / kappa^2 + lambda)^-nu undefined for large kappa.
  pairs.values = pairs.values.cwiseMax(0.0);
  return {std::move(pairs.values), std::move(pairs.vectors)};
}

GraphSpectrum graph_spectrum(const SparseGraph& graph, LaplacianKind kind, const Communicator& comm) {
  require(kind != LaplacianKind::random_walk,
          "the graph GP needs a symmetric Laplacian: use 'symmetric' or 'unnormalised', not 'random_walk'",
          {"", "graph.laplacian", "random_walk"});
  const MatHandle laplacian = graph_laplacian(graph, kind, comm);
  const RowMatrix local = copy_local_rows(laplacian.get());
  return graph_spectrum(Matrix(comm.allgather_rows(DataRef(local))));
}

Matrix project_onto_spectrum(const GraphSpectrum& spectrum, const ConstMatrixRef& local_y,
                             const Communicator& comm) {
  const RowPartition partition(static_cast<std::uint64_t>(spectrum.size()), comm.size());
  const auto begin = static_cast<Index>(partition.begin(comm.rank()));
  const auto count = static_cast<Index>(partition.count(comm.rank()));
  const auto columns = static_cast<Index>(comm.allreduce_max(static_cast<std::int64_t>(local_y.cols())));
  // Checked collectively: a rank that threw alone would leave the others in the allreduce.
  std::string problem;
  if (local_y.rows() != count)
    problem = "this rank's rows of Y (" + std::to_string(local_y.rows()) + ") are not its share of the " +
              std::to_string(spectrum.size()) + " graph vertices (" + std::to_string(count) + ")";
  else if (count > 0 && local_y.cols() != columns)
    problem = "the ranks' rows of Y differ in width";
  comm.agree_on_problem(problem, "y");
  Matrix projected = Matrix::Zero(spectrum.size(), columns);
  if (count > 0) projected.noalias() = spectrum.vectors.middleRows(begin, count).transpose() * local_y;
  comm.allreduce_sum(projected);
  return projected;
}

Matrix graph_gp_covariance(const GraphSpectrum& spectrum, const GraphKernel& kernel,
                           const GraphGpHyperparameters& hyper, bool normalise, bool with_noise) {
  require_valid(kernel);
  require_valid(hyper);
  const Vector s = spectral_values(kernel, hyper.kappa, spectrum.eigenvalues);
  Matrix c = spectrum.vectors * s.asDiagonal() * spectrum.vectors.transpose();
  if (normalise) {
    const Vector inverse_root = c.diagonal().cwiseSqrt().cwiseInverse();
    c = inverse_root.asDiagonal() * c * inverse_root.asDiagonal();
  }
  c *= hyper.signal_variance;
  if (with_noise) c.diagonal().array() += hyper.noise_variance;
  return c;
}

}  // namespace gplvm

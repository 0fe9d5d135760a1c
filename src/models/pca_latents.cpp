#include "gplvm/models/pca_latents.hpp"

#include <Eigen/Eigenvalues>
#include <string>

#include "gplvm/core/error.hpp"

namespace gplvm {
namespace {

bool same_on_every_rank(Index value, const Communicator& comm) {
  const auto v = static_cast<double>(value);
  return comm.allreduce_max(v) == -comm.allreduce_max(-v);
}

// Flips each column so that its largest-magnitude entry is positive: eigenvectors are defined up
// to sign, and a fixed convention makes the latents reproducible.
void fix_signs(Matrix& directions) {
  for (Index q = 0; q < directions.cols(); ++q) {
    Index top = 0;
    directions.col(q).cwiseAbs().maxCoeff(&top);
    if (directions(top, q) < 0) directions.col(q) *= -1.0;
  }
}

// Rank 0's top-Q eigenpairs of the scatter matrix, on every rank: [directions (D x Q) | values].
Matrix top_principal_directions(const Matrix& scatter, Index latent_dim, const Communicator& comm) {
  const Index d = scatter.rows();
  Matrix packed(d + 1, latent_dim);  // last row: eigenvalues
  if (comm.is_root()) {
    const Eigen::SelfAdjointEigenSolver<Matrix> solver(scatter);
    if (solver.info() != Eigen::Success)
      throw NumericalError("eigendecomposition of the data scatter failed");
    // Eigen sorts eigenvalues in increasing order: the top Q are the last Q, reversed.
    Matrix directions = solver.eigenvectors().rightCols(latent_dim).rowwise().reverse();
    fix_signs(directions);
    packed.topRows(d) = directions;
    packed.row(d) = solver.eigenvalues().tail(latent_dim).reverse().transpose();
  }
  comm.broadcast(packed.data(), packed.size(), 0);
  return packed;
}

void require_enough_variance(const Vector& values) {
  require(values[0] > 0, "the data have no variance: PCA latents are undefined", {"", "latent_dim"});
  for (Index q = 1; q < values.size(); ++q)
    require(values[q] > 1e-12 * values[0],
            "the data have only " + std::to_string(q) + " direction(s) of variance; cannot initialise " +
                std::to_string(values.size()) + " latent dimensions by PCA",
            {"", "latent_dim", std::to_string(values.size())});
}

}  // namespace

// The data block this rank holds must be its partition block, with the same columns everywhere.
void require_partitioned_data(const DataRef& Y_local, const RowPartition& partition,
                              const Communicator& comm) {
  require(partition.num_ranks() == comm.size(),
          "the row partition is over " + std::to_string(partition.num_ranks()) + " ranks but the job has " +
              std::to_string(comm.size()),
          {"", "partition", std::to_string(partition.num_ranks())});
  const auto expected = static_cast<Index>(partition.count(comm.rank()));
  std::string problem;
  if (Y_local.rows() != expected)
    problem = "rank " + std::to_string(comm.rank()) + " holds " + std::to_string(Y_local.rows()) +
              " data rows but the row partition gives it " + std::to_string(expected);
  else if (!Y_local.allFinite())
    problem = "data rows of rank " + std::to_string(comm.rank()) + " contain NaN or Inf";
  comm.agree_on_problem(problem, "data");
  require(same_on_every_rank(Y_local.cols(), comm), "ranks disagree on the number of data columns",
          {"", "data", std::to_string(Y_local.cols())});
  require(Y_local.cols() >= 1, "data have no columns", {"", "data"});
}

Matrix pca_latents(const DataRef& Y_local, const RowPartition& partition, const Communicator& comm,
                   Index latent_dim) {
  require_partitioned_data(Y_local, partition, comm);
  const Index d = Y_local.cols();
  const auto n = static_cast<Index>(partition.num_rows());
  require(n >= 2, "PCA needs at least two data rows", {"", "data", std::to_string(n)});
  require(latent_dim >= 1 && latent_dim <= d,
          "the latent dimension must be between 1 and the data dimension (" + std::to_string(d) + ")",
          {"", "latent_dim", std::to_string(latent_dim)});

  // The mean first, then the scatter of the centred rows: Y^T Y - N mu mu^T in one pass would
  // cancel catastrophically when the mean is large next to the spread.
  Vector mean = Y_local.colwise().sum().transpose();
  comm.allreduce_sum(mean.data(), d);
  mean /= static_cast<double>(n);
  const Matrix centred = Y_local.rowwise() - mean.transpose();
  Matrix scatter = Matrix::Zero(d, d);
  scatter.selfadjointView<Eigen::Lower>().rankUpdate(centred.transpose());
  comm.allreduce_sum(scatter);

  const Matrix packed = top_principal_directions(scatter, latent_dim, comm);
  const Vector values = packed.row(d).transpose();
  require_enough_variance(values);
  // Column q of centred * directions has sum of squares values[q]; scale to variance 1.
  const Vector scale = (values / static_cast<double>(n)).cwiseSqrt().cwiseInverse();
  return (centred * packed.topRows(d)) * scale.asDiagonal();
}

}  // namespace gplvm

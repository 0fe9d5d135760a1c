#include "gplvm/models/pca_latents.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "gplvm/core/error.hpp"
#include "gplvm/linalg/symmetric_eigen.hpp"
#include "gplvm/models/global_row_blocks.hpp"
#include "gplvm/parallel/reproducible_sum.hpp"
#include "gplvm/parallel/row_redistribution.hpp"

namespace gplvm {
namespace {

bool same_on_every_rank(Index value, const Communicator& comm) {
  const auto v = static_cast<double>(value);
  return comm.allreduce_max(v) == -comm.allreduce_max(-v);
}

// Rank 0's top-Q eigenpairs of the scatter matrix, on every rank: [directions (D x Q) | values].
Matrix top_principal_directions(const Matrix& scatter, Index latent_dim, const Communicator& comm) {
  const Index d = scatter.rows();
  Matrix packed(d + 1, latent_dim);  // last row: eigenvalues
  if (comm.is_root()) {
    const SymmetricEigenpairs top = largest_eigenpairs(scatter, latent_dim, "the data scatter");
    packed.topRows(d) = top.vectors;
    packed.row(d) = top.values.transpose();
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

// The centred data with their column means and scatter matrix (lower triangle).
struct CentredData {
  Matrix rows;
  Matrix scatter;
};

// Per-rank sums: each rank's column sums and scatter, added by allreduce (rounding follows the
// rank count).
CentredData centre_per_rank(const DataRef& Y_local, Index n, const Communicator& comm) {
  // The mean first, then the scatter of the centred rows: Y^T Y - N mu mu^T in one pass would
  // cancel catastrophically when the mean is large next to the spread.
  const Index d = Y_local.cols();
  Vector mean = Y_local.colwise().sum().transpose();
  comm.allreduce_sum(mean.data(), d);
  mean /= static_cast<double>(n);
  CentredData c{Y_local.rowwise() - mean.transpose(), Matrix::Zero(d, d)};
  c.scatter.selfadjointView<Eigen::Lower>().rankUpdate(c.rows.transpose());
  comm.allreduce_sum(c.scatter);
  return c;
}

// Column sums of each block of `rows` (whole blocks), block after block, rows added in order.
std::vector<double> block_column_sums(const RowMatrix& rows, Index rows_per_block) {
  const Index d = rows.cols(), blocks = (rows.rows() + rows_per_block - 1) / rows_per_block;
  std::vector<double> sums(static_cast<std::size_t>(blocks * d), 0.0);
  for (Index i = 0; i < rows.rows(); ++i) {
    double* block_sum = sums.data() + (i / rows_per_block) * d;
    for (Index j = 0; j < d; ++j) block_sum[j] += rows(i, j);
  }
  return sums;
}

// The largest diagonal entry of any block's scatter, over every rank: by Cauchy-Schwarz no entry
// of a block's scatter exceeds it (the same bits everywhere: each block's sums of squares are
// plain loops over its rows, and a maximum does not round).
double largest_block_variance_sum(const Matrix& centred, Index rows_per_block, const Communicator& comm) {
  double largest = 0.0;
  for (Index first = 0; first < centred.rows(); first += rows_per_block) {
    const Index last = std::min(first + rows_per_block, centred.rows());
    for (Index j = 0; j < centred.cols(); ++j) {
      double sum_of_squares = 0.0;
      for (Index i = first; i < last; ++i) sum_of_squares += centred(i, j) * centred(i, j);
      largest = std::max(largest, sum_of_squares);
    }
  }
  return comm.allreduce_max(largest);
}

// Reproducible sums: the rows move so that each rank holds whole blocks (at most one partial
// block per rank boundary moves), each block's column sums and scatter (lower triangle, packed:
// D (D + 1) / 2 values) are formed whole by one rank with products of the block's own shape, and
// the blocks are added exactly (parallel/reproducible_sum.hpp), the scatter one block at a time so
// that only one block's partial and the exact sum's 3 D (D + 1) / 2 parts are held.
CentredData centre_in_blocks(const RowMatrix& rows, Index n, Index rows_per_block, const Communicator& comm) {
  const Index d = rows.cols(), blocks = (rows.rows() + rows_per_block - 1) / rows_per_block;
  const std::vector<double> column_sums = block_column_sums(rows, rows_per_block);
  Vector mean(d);
  reproducible_sum(comm, BlockPartials<double>{column_sums.data(), blocks, d, d}, mean.data());
  mean /= static_cast<double>(n);
  CentredData c{rows.rowwise() - mean.transpose(), Matrix::Zero(d, d)};

  // Every term is below half the bound, so 2^13 blocks could be added; there are at most 2^12.
  ReproducibleAccumulator total(d * (d + 1) / 2,
                                2.0 * largest_block_variance_sum(c.rows, rows_per_block, comm));
  Matrix block_scatter(d, d);
  Vector packed(d * (d + 1) / 2);
  for (Index first = 0; first < c.rows.rows(); first += rows_per_block) {
    const Index count = std::min(rows_per_block, c.rows.rows() - first);
    const Matrix block =
        c.rows.middleRows(first, count);  // fresh storage: the same alignment for every block
    block_scatter.setZero();
    block_scatter.selfadjointView<Eigen::Lower>().rankUpdate(block.transpose());
    for (Index j = 0, k = 0; j < d; k += d - j, ++j)
      packed.segment(k, d - j) = block_scatter.col(j).tail(d - j);
    total.add(packed.data());
  }
  total.sum(comm, packed.data());
  for (Index j = 0, k = 0; j < d; k += d - j, ++j) c.scatter.col(j).tail(d - j) = packed.segment(k, d - j);
  return c;
}

// centred * directions, each entry a plain loop over the columns in order: no product whose
// rounding depends on how many rows a rank holds or where they lie in memory.
RowMatrix project_row_by_row(const Matrix& centred, const Matrix& directions) {
  RowMatrix z(centred.rows(), directions.cols());
  for (Index i = 0; i < centred.rows(); ++i)
    for (Index q = 0; q < directions.cols(); ++q) {
      double sum = 0.0;
      for (Index j = 0; j < centred.cols(); ++j) sum += centred(i, j) * directions(j, q);
      z(i, q) = sum;
    }
  return z;
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
                   Index latent_dim, bool reproducible_sums) {
  require_partitioned_data(Y_local, partition, comm);
  const Index d = Y_local.cols();
  const auto n = static_cast<Index>(partition.num_rows());
  require(n >= 2, "PCA needs at least two data rows", {"", "data", std::to_string(n)});
  require(latent_dim >= 1 && latent_dim <= d,
          "the latent dimension must be between 1 and the data dimension (" + std::to_string(d) + ")",
          {"", "latent_dim", std::to_string(latent_dim)});

  if (!reproducible_sums) {
    const CentredData c = centre_per_rank(Y_local, n, comm);
    const Matrix packed = top_principal_directions(c.scatter, latent_dim, comm);
    const Vector values = packed.row(d).transpose();
    require_enough_variance(values);
    // Column q of centred * directions has sum of squares values[q]; scale to variance 1.
    const Vector scale = (values / static_cast<double>(n)).cwiseSqrt().cwiseInverse();
    return (c.rows * packed.topRows(d)) * scale.asDiagonal();
  }
  const GlobalRowBlocks blocks = global_row_blocks(partition);
  const Index rows_per_block = blocks.rows_per_block;
  const std::vector<std::uint64_t>& blocks_layout = blocks.begins;
  const RowMatrix rows =
      redistribute_rows(comm, Y_local, partition.begin(comm.rank()), partition.num_rows(), blocks_layout);
  const CentredData c = centre_in_blocks(rows, n, rows_per_block, comm);
  const Matrix packed = top_principal_directions(c.scatter, latent_dim, comm);
  const Vector values = packed.row(d).transpose();
  require_enough_variance(values);
  const Vector scale = (values / static_cast<double>(n)).cwiseSqrt().cwiseInverse();
  const RowMatrix latents = project_row_by_row(c.rows, packed.topRows(d)) * scale.asDiagonal();
  std::vector<std::uint64_t> partition_layout;
  for (int r = 0; r <= comm.size(); ++r) partition_layout.push_back(partition.begin(r));
  return redistribute_rows(comm, DataRef(latents), blocks_layout[static_cast<std::size_t>(comm.rank())],
                           partition.num_rows(), partition_layout);
}

}  // namespace gplvm

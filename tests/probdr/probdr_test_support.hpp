#pragma once
// Shared by the ProbDR method tests: test data, a moment made dense on small n (its operator applied
// to the identity's columns, gathered), the classical coordinates from a dense eigensolve of it, span
// projectors, and a Python reference run on rank 0 and shared with every rank.
#include <Eigen/Eigenvalues>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gplvm/parallel/row_partition.hpp"
#include "gplvm/probdr/moment.hpp"
#include "graph/graph_test_data.hpp"
#include "support/python_reference.hpp"

namespace gplvm::testing {

// A swiss roll (n points, width `height`) with Gaussian noise: t in [1.5 pi, 4.5 pi].
inline RowMatrix swiss_roll(Index n, double height, double noise, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform;
  std::normal_distribution<double> normal;
  RowMatrix rows(n, 3);
  for (Index i = 0; i < n; ++i) {
    const double t = 1.5 * M_PI * (1.0 + 2.0 * uniform(engine)), h = height * uniform(engine);
    rows.row(i) << t * std::cos(t), h, t * std::sin(t);
    for (Index j = 0; j < 3; ++j) rows(i, j) += noise * normal(engine);
  }
  return rows;
}

// This rank's first row and row count under RowPartition.
inline std::pair<Index, Index> local_range(Index n, const Communicator& comm) {
  const RowPartition partition(static_cast<std::uint64_t>(n), comm.size());
  return {static_cast<Index>(partition.begin(comm.rank())), static_cast<Index>(partition.count(comm.rank()))};
}

// The moment as a dense n x n matrix on every rank: apply to this rank's rows of I_n, gathered.
inline Matrix dense_moment(const MomentEstimate& moment, const Communicator& comm) {
  const Index n =
      moment.form == MomentForm::covariance ? moment.covariance->num_rows() : moment.precision->num_rows();
  const auto [first, count] = local_range(n, comm);
  const Matrix identity_rows = Matrix::Identity(n, n).middleRows(first, count);
  const Matrix rows = moment.form == MomentForm::covariance ? moment.covariance->apply(identity_rows)
                                                            : moment.precision->apply(identity_rows);
  return comm.allgather_rows(ConstMatrixRef(rows));
}

// The retained eigenpairs of a dense moment: the l largest of a covariance; the l smallest of a
// precision after its null vectors.
struct DenseEigenpairs {
  Vector values;
  Matrix vectors;  // n x l
};
inline DenseEigenpairs retained_eigenpairs(const MomentEstimate& moment, const Matrix& dense, Index l) {
  const Eigen::SelfAdjointEigenSolver<Matrix> eigen(0.5 * (dense + dense.transpose()));
  if (moment.form == MomentForm::covariance)
    return {eigen.eigenvalues().tail(l).reverse(), eigen.eigenvectors().rightCols(l).rowwise().reverse()};
  return {eigen.eigenvalues().segment(moment.null_vectors, l),
          eigen.eigenvectors().middleCols(moment.null_vectors, l)};
}

// The method's classical coordinates (n x l, gathered) from a dense eigensolve of its moment.
inline Matrix classical_coordinates(const MomentEstimate& moment, Index l, const Communicator& comm) {
  const DenseEigenpairs pairs = retained_eigenpairs(moment, dense_moment(moment, comm), l);
  const auto [first, count] = local_range(pairs.vectors.rows(), comm);
  const Matrix local = moment.classical(pairs.vectors.middleRows(first, count), pairs.values);
  return comm.allgather_rows(ConstMatrixRef(local));
}

inline Matrix span_projector(const Matrix& V) {
  const Matrix Q = Eigen::HouseholderQR<Matrix>(V).householderQ() * Matrix::Identity(V.rows(), V.cols());
  return Q * Q.transpose();
}

inline double projector_difference(const Matrix& a, const Matrix& b) {
  return (span_projector(a) - span_projector(b)).cwiseAbs().maxCoeff();
}

// The script's numbers (expected: exactly `count` of them) on every rank, run by rank 0 only;
// empty when Python or its packages are missing there.
inline std::vector<double> python_on_root(const std::string& script, const std::vector<Matrix>& inputs,
                                          Index count, const Communicator& comm) {
  Vector shared = Vector::Zero(count + 1);
  if (comm.rank() == 0) {
    const std::vector<double> ref = python_reference(script, inputs);
    if (ref.size() == static_cast<std::size_t>(count)) {
      shared.head(count) = Eigen::Map<const Vector>(ref.data(), count);
      shared[count] = 1.0;
    }
  }
  comm.allreduce_sum(shared.data(), shared.size());
  if (shared[count] == 0.0) return {};
  return std::vector<double>(shared.data(), shared.data() + count);
}

inline Matrix as_matrix(const std::vector<double>& values, Index rows, Index cols) {
  return Eigen::Map<const RowMatrix>(values.data(), rows, cols);
}

}  // namespace gplvm::testing

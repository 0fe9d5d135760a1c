#pragma once
// How the Wishart covariance objective sees its n x n moment S_hat (docs/math/probdr.md): only
// through products with the latents and its trace, so that S_hat may be a low-rank factor (PCA), a
// dense matrix held by rows (classical MDS, Isomap, kernel PCA) or a sparse operator (diffusion
// maps), distributed by rows like X. The covariance twin of precision_operator.hpp:
//
//   apply        this rank's rows of S_hat X, given this rank's rows of X. Collective.
//   local_trace  the sum of this rank's diagonal entries of S_hat (no communication).
//
// S_hat must be symmetric; the objective's optimum needs its l largest eigenvalues positive.
#include "gplvm/core/types.hpp"
#include "gplvm/objectives/dense_row_matrix.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

class CovarianceOperator {
 public:
  virtual ~CovarianceOperator() = default;
  virtual Index num_rows() const = 0;    // n, over all ranks
  virtual Index local_rows() const = 0;  // rows of S_hat (and of X) on this rank
  // Collective: this rank's rows of S_hat X (local_rows x l).
  virtual Matrix apply(const ConstMatrixRef& local_latents) const = 0;
  virtual double local_trace() const = 0;
};

// S_hat = F F^T from this rank's rows of F (n x d): never formed. apply is F (F^T X), one allreduce
// of d l doubles; O(n d l / P).
class LowRankCovariance : public CovarianceOperator {
 public:
  LowRankCovariance(const Communicator& comm, RowMatrix local_factor);
  Index num_rows() const override { return num_rows_; }
  Index local_rows() const override { return factor_.rows(); }
  Matrix apply(const ConstMatrixRef& local_latents) const override;
  double local_trace() const override;
  const RowMatrix& local_factor() const noexcept { return factor_; }

 private:
  const Communicator& comm_;
  RowMatrix factor_;
  Index num_rows_ = 0;
};

// S_hat held densely by rows: this rank's rows, all n columns (consecutive blocks in rank order, as
// RowPartition's). apply gathers X (n l doubles) and costs O(n^2 l / P); memory n^2 / P doubles.
// InputError on every rank unless the blocks together have n rows and every one has n columns.
class DenseRowCovariance : public CovarianceOperator {
 public:
  DenseRowCovariance(const Communicator& comm, Matrix local_rows);
  Index num_rows() const override { return rows_.num_rows(); }
  Index local_rows() const override { return rows_.local_rows(); }
  Matrix apply(const ConstMatrixRef& local_latents) const override { return rows_.apply(local_latents); }
  double local_trace() const override { return rows_.local_trace(); }
  const Matrix& local_block() const noexcept { return rows_.local_block(); }
  Index first_row() const noexcept { return rows_.first_row(); }

 private:
  DenseRowMatrix rows_;
};

}  // namespace gplvm

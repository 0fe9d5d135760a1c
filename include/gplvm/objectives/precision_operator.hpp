#pragma once
// How the Wishart precision objective sees its n x n moment Gamma_hat (docs/math/probdr.md): only
// through products with the latents and its trace, so that Gamma_hat may be dense or sparse and
// distributed by rows like X. An implementation owns the rows of Gamma_hat of this rank's rows of X
// (the same RowPartition) and answers two questions:
//
//   apply        this rank's rows of Gamma_hat X, given this rank's rows of X. Collective: a dense
//                implementation gathers X (n x l, small); a sparse one (a graph Laplacian, CSR
//                rows) needs only its rows' neighbours, a halo exchange of the rows of X its
//                columns touch, then one local sparse-times-dense product.
//   local_trace  the sum of this rank's diagonal entries of Gamma_hat (no communication; the
//                objective adds it up with its other sums).
//
// Gamma_hat must be symmetric positive semi-definite. Regularisation (Gamma_hat + gamma I) is the
// objective's business, not the operator's.
#include "gplvm/core/types.hpp"
#include "gplvm/objectives/dense_row_matrix.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

class PrecisionOperator {
 public:
  virtual ~PrecisionOperator() = default;
  virtual Index num_rows() const = 0;    // n, over all ranks
  virtual Index local_rows() const = 0;  // rows of Gamma_hat (and of X) on this rank
  // Collective: this rank's rows of Gamma_hat X (local_rows x l).
  virtual Matrix apply(const ConstMatrixRef& local_latents) const = 0;
  virtual double local_trace() const = 0;
};

// Gamma_hat held densely by rows: this rank's rows, all n columns. For n up to a few thousand (the
// tests, LLE's W W^T of a small data set); apply gathers X on every rank (n l doubles) and costs
// O(n^2 l / P).
class DenseRowPrecision : public PrecisionOperator {
 public:
  // Collective. InputError (key "precision") on every rank unless the blocks make an n x n matrix.
  DenseRowPrecision(const Communicator& comm, Matrix local_rows);
  Index num_rows() const override { return rows_.num_rows(); }
  Index local_rows() const override { return rows_.local_rows(); }
  Matrix apply(const ConstMatrixRef& local_latents) const override { return rows_.apply(local_latents); }
  double local_trace() const override { return rows_.local_trace(); }

 private:
  DenseRowMatrix rows_;
};

}  // namespace gplvm

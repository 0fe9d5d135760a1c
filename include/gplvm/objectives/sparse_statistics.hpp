#pragma once
// The data statistics of the sparse (inducing-point) GPLVM bounds (docs/math/sparse_gplvm.md):
//
//   psi0 = sum_n E k(x_n, x_n)              (scalar)
//   P    = Psi1^T Y = sum_n E[k(Z, x_n)] y_n^T (M x D)
//   Psi2 = sum_n E[k(Z, x_n) k(x_n, Z)]     (M x M, symmetric)
//   ||Y||^2, the row count, and sum_n KL(q(x_n) || N(0, I)) (zero for point latents)
//
// Every one is a sum over data rows, so each rank forms them over the rows it owns and ONE
// allreduce of M^2 + M D + 4 numbers gives every rank the full-data statistics; the bounds are
// then evaluated redundantly from them (collapsed_bound.hpp, uncollapsed_bound.hpp). The same
// additivity makes N/B times a batch's statistics an unbiased estimate of the full data's.
//
// The per-row expectations are Psi-statistics (Kernel::psi_statistics for Gaussian latents,
// point_psi_statistics for points); this file turns a rank's PsiStatistics and data rows into its
// partial sums, and carries the adjoint dF/dP back to the rows (dF/dPsi1 = Y (dF/dP)^T).
#include "gplvm/core/types.hpp"
#include "gplvm/model/kernel.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

struct SparseStatistics {
  double psi0 = 0.0;
  Matrix psi1_data;        // P = Psi1^T Y, M x D
  Matrix psi2;             // M x M, both triangles
  double data_norm = 0.0;  // ||Y||_F^2
  double num_rows = 0.0;   // N (a double: scaled statistics have fractional counts)
  double kl = 0.0;         // sum_n KL(q(x_n) || p(x_n)) over the rows; 0 for point latents

  static SparseStatistics zero(Index num_inducing, Index data_dim);
  Index num_inducing() const { return psi2.rows(); }
  Index data_dim() const { return psi1_data.cols(); }

  SparseStatistics& operator+=(const SparseStatistics& other);
  // Multiplies every statistic (count and KL included) by `factor`: N/B times a batch's
  // statistics is the unbiased estimate of the full data's.
  SparseStatistics& scale(double factor);

  // One flat buffer, M^2 + M D + 4 doubles, for one allreduce.
  Index packed_size() const;
  void pack(double* buffer) const;
  void unpack(const double* buffer);  // shapes must already be set (zero() or a copy)
  // Sums the statistics over the ranks of `comm` in place (one allreduce).
  void allreduce(const Communicator& comm);
};

// The adjoint of a scalar bound F with respect to the statistics.
struct StatisticsAdjoint {
  double d_psi0 = 0.0;
  Matrix d_psi1_data;  // dF/dP, M x D
  Matrix d_psi2;       // dF/dPsi2, M x M, symmetric
  double d_data_norm = 0.0;
  double d_kl = 0.0;  // -1 for the bounds (F = ... - KL); scaled with the statistics

  // The adjoint with respect to the unscaled statistics when F was evaluated at factor * S.
  StatisticsAdjoint scaled(double factor) const;
};

// This rank's partial statistics from its rows' Psi-statistics (psi.psi1 is N_loc x M) and data
// rows Y_local (N_loc x D). kl is left 0 (bayesian rows add theirs: sparse_gplvm.hpp).
SparseStatistics sparse_statistics(const PsiStatistics& psi, const DataRef& Y_local);
// The same from float32 data: P and ||Y||^2 accumulate in double, a block of rows converted at a
// time.
SparseStatistics sparse_statistics(const PsiStatistics& psi, const DataRefF& Y_local);

// dF/dPsi1 for this rank's rows: Y_local (dF/dP)^T, N_loc x M.
Matrix psi1_adjoint(const StatisticsAdjoint& adjoint, const DataRef& Y_local);
Matrix psi1_adjoint(const StatisticsAdjoint& adjoint, const DataRefF& Y_local);

}  // namespace gplvm

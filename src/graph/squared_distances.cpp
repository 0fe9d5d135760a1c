#include "gplvm/graph/squared_distances.hpp"

#include <algorithm>

#include "gplvm/core/memory_reuse.hpp"

namespace gplvm {

Vector row_squared_norms(const DataRef& rows) {
  Vector norms(rows.rows());
  for (Index i = 0; i < rows.rows(); ++i) {
    double sum = 0.0;
    for (Index q = 0; q < rows.cols(); ++q) sum += rows(i, q) * rows(i, q);
    norms[i] = sum;
  }
  return norms;
}

void squared_distances(const DataRef& A, const ConstVectorRef& a_norms, const DataRef& B,
                       const ConstVectorRef& b_norms, RowMatrix& out) {
  const Index d = A.cols(), nb = B.rows();
  const RowMatrix Bt = B.transpose();  // row q holds column q of every B row, contiguously
  out.resize(A.rows(), nb);
  advise_huge_pages(out.data(), static_cast<std::size_t>(out.size()) * sizeof(double));
  for (Index i = 0; i < A.rows(); ++i) {
    double* acc = out.row(i).data();
    std::fill(acc, acc + nb, 0.0);
    for (Index q = 0; q < d; ++q) {
      const double a = A(i, q);
      const double* b = Bt.row(q).data();
      for (Index j = 0; j < nb; ++j) acc[j] += a * b[j];  // column order per entry, vectorised over j
    }
    for (Index j = 0; j < nb; ++j) acc[j] = std::max(0.0, (a_norms[i] + b_norms[j]) - 2.0 * acc[j]);
  }
}

double squared_distance(const double* a, double a_norm, const double* b, double b_norm, Index d) {
  double dot = 0.0;
  for (Index q = 0; q < d; ++q) dot += a[q] * b[q];
  return std::max(0.0, (a_norm + b_norm) - 2.0 * dot);
}

}  // namespace gplvm

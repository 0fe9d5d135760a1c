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

namespace {

// A block of kRowsAtOnce rows of A against kColumnsAtOnce rows of B at a time, its partial sums held
// in registers across the columns q (the rank-one form streamed the whole output row through the
// cache once per column). Each entry is still 0 + a_0 b_0 + a_1 b_1 + ... in column order, each
// product rounded before its sum, so the blocking changes no bit.
constexpr Index kRowsAtOnce = 4;
constexpr Index kColumnsAtOnce = 32;

// Output rows are `stride` doubles apart: a block of a larger matrix (squared_distances_into).
void dot_block(const DataRef& A, Index i, const RowMatrix& Bt, Index j, double* out, Index stride) {
  double acc[kRowsAtOnce][kColumnsAtOnce] = {};
  for (Index q = 0; q < A.cols(); ++q) {
    const double* b = Bt.row(q).data() + j;
    for (Index r = 0; r < kRowsAtOnce; ++r) {
      const double a = A(i + r, q);
      for (Index c = 0; c < kColumnsAtOnce; ++c) acc[r][c] += a * b[c];
    }
  }
  for (Index r = 0; r < kRowsAtOnce; ++r)
    std::copy(acc[r], acc[r] + kColumnsAtOnce, out + (i + r) * stride + j);
}

// Row i of A against B's rows [j, nb), the same sums one entry at a time.
void dot_row(const DataRef& A, Index i, const RowMatrix& Bt, Index j, double* out, Index stride) {
  double* acc = out + i * stride;
  std::fill(acc + j, acc + Bt.cols(), 0.0);
  for (Index q = 0; q < A.cols(); ++q) {
    const double a = A(i, q);
    const double* b = Bt.row(q).data();
    for (Index c = j; c < Bt.cols(); ++c) acc[c] += a * b[c];  // column order per entry, vectorised over c
  }
}

}  // namespace

void squared_distances_into(const DataRef& A, const ConstVectorRef& a_norms, const DataRef& B,
                            const ConstVectorRef& b_norms, double* out, Index stride) {
  const Index na = A.rows(), nb = B.rows();
  const RowMatrix Bt = B.transpose();  // row q holds column q of every B row, contiguously
  const auto to_distances = [&](Index first, Index count) {  // while the rows are in cache
    for (Index r = first; r < first + count; ++r) {
      double* row = out + r * stride;
      for (Index c = 0; c < nb; ++c) row[c] = std::max(0.0, (a_norms[r] + b_norms[c]) - 2.0 * row[c]);
    }
  };
  const Index blocked_columns = nb / kColumnsAtOnce * kColumnsAtOnce;
  Index i = 0;
  for (; i + kRowsAtOnce <= na; i += kRowsAtOnce) {
    for (Index j = 0; j < blocked_columns; j += kColumnsAtOnce) dot_block(A, i, Bt, j, out, stride);
    for (Index r = 0; r < kRowsAtOnce; ++r) dot_row(A, i + r, Bt, blocked_columns, out, stride);
    to_distances(i, kRowsAtOnce);
  }
  for (; i < na; ++i) {
    dot_row(A, i, Bt, 0, out, stride);
    to_distances(i, 1);
  }
}

void squared_distances(const DataRef& A, const ConstVectorRef& a_norms, const DataRef& B,
                       const ConstVectorRef& b_norms, RowMatrix& out) {
  out.resize(A.rows(), B.rows());
  advise_huge_pages(out.data(), static_cast<std::size_t>(out.size()) * sizeof(double));
  squared_distances_into(A, a_norms, B, b_norms, out.data(), B.rows());
}

double squared_distance(const double* a, double a_norm, const double* b, double b_norm, Index d) {
  double dot = 0.0;
  for (Index q = 0; q < d; ++q) dot += a[q] * b[q];
  return std::max(0.0, (a_norm + b_norm) - 2.0 * dot);
}

}  // namespace gplvm

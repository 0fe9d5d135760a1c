#pragma once
// Squared Euclidean distances between two blocks of rows in the product form
// ||a||^2 + ||b||^2 - 2 a.b, clamped at 0 (rounding can make it slightly negative for near
// neighbours; its absolute error is of the order of eps (||a||^2 + ||b||^2), so close pairs of far-out
// points lose relative accuracy).
//
// Every entry is a function of its two rows alone, bit for bit: each dot product is summed in
// column order, whatever block and position the rows have. That is what makes neighbour graphs
// identical at any rank count. A library GEMM does not promise it (Eigen's kernel, for one, sums
// the rows at the edge of its panels by a different path than the rest), so the product is formed
// here as a sum of ordered rank-one updates that the compiler vectorises across the second block's
// rows. This file is compiled without floating-point contraction (CMakeLists.txt), so that the
// vectorised body and its scalar remainder round alike.
//
// A row and its exact duplicate are at distance exactly 0: its squared norm is summed in the same
// order as the dot product.
#include <algorithm>

#include "gplvm/core/types.hpp"

namespace gplvm {

// Squared norm of each row, summed in column order.
Vector row_squared_norms(const DataRef& rows);
// out(i, j) = max(0, a_norms[i] + b_norms[j] - 2 A.row(i).B.row(j)); out is resized.
void squared_distances(const DataRef& A, const ConstVectorRef& a_norms, const DataRef& B,
                       const ConstVectorRef& b_norms, RowMatrix& out);
// The same into rows `stride` doubles apart (stride >= B.rows()): out[i * stride + j].
void squared_distances_into(const DataRef& A, const ConstVectorRef& a_norms, const DataRef& B,
                            const ConstVectorRef& b_norms, double* out, Index stride);
// The same for one pair of rows of length d.
double squared_distance(const double* a, double a_norm, const double* b, double b_norm, Index d);

// Rows of a visiting block handled per call of squared_distances, bounding its output at
// (local rows x kDistanceTileRows) doubles.
inline constexpr Index kDistanceTileRows = 256;

// visit(tile, start, rows) for each run of up to kDistanceTileRows rows of `reference`, with
// tile(i, j) the squared distance of query i to reference row start + j.
template <class Visit>
void for_each_distance_tile(const DataRef& queries, const ConstVectorRef& query_norms,
                            const DataRef& reference, Visit visit) {
  RowMatrix tile;
  for (Index start = 0; start < reference.rows(); start += kDistanceTileRows) {
    const Index rows = std::min(kDistanceTileRows, reference.rows() - start);
    const auto block = reference.middleRows(start, rows);
    squared_distances(queries, query_norms, block, row_squared_norms(block), tile);
    visit(tile, start, rows);
  }
}

}  // namespace gplvm

#include "gplvm/linalg/rank_update.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "gplvm/linalg/gemm.hpp"

namespace gplvm {
namespace {

// Rows per block: small enough that the ~block/A overshoot above the diagonal stays cheap, large
// enough to fill the engine's row panels.
constexpr Index kBlockRows = 48;
// Below this order Eigen's rankUpdate is as fast (bench_kernels: 52 against 48 GFLOP/s at 100).
constexpr Index kMinBlockedOrder = 128;

}  // namespace

void rank_update_lower(const ConstMatrixRef& a, double alpha, MatrixRef c) {
  if (c.rows() != a.rows() || c.cols() != a.rows())
    throw std::invalid_argument("rank_update_lower: C is " + std::to_string(c.rows()) + "x" +
                                std::to_string(c.cols()) + ", A has " + std::to_string(a.rows()) + " rows");
  const Index n = a.rows();
  if (n == 0) return;
  if (!packed_gemm_compiled() || n < kMinBlockedOrder || a.cols() == 0) {
    c.selfadjointView<Eigen::Lower>().rankUpdate(a, alpha);
    return;
  }
  Matrix block(std::min(kBlockRows, n), n);
  for (Index i0 = 0; i0 < n; i0 += kBlockRows) {
    const Index rows = std::min(kBlockRows, n - i0), end = i0 + rows;
    auto product = block.topLeftCorner(rows, end);
    gemm(view_of(a.middleRows(i0, rows)), view_of(a.topRows(end)).transposed(), mutable_view_of(product),
         GemmUpdate::overwrite);
    for (Index j = 0; j < end; ++j) {
      const Index first = std::max<Index>(j - i0, 0);  // rows on or below the diagonal
      c.col(j).segment(i0 + first, rows - first) += alpha * product.col(j).segment(first, rows - first);
    }
  }
}

}  // namespace gplvm

#include "gplvm/linalg/rank_update.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "gplvm/core/threads.hpp"
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
  // Row blocks write disjoint rows of C, so the rank's threads take contiguous groups of them, cut
  // where the work (rows x columns up to the block's end, growing down the triangle) is shared
  // evenly; each block is the same computation whichever thread runs it.
  const Index blocks = (n + kBlockRows - 1) / kBlockRows;
  const Index groups = std::min<Index>(threads_per_rank(), blocks);
  std::vector<Index> first_block(static_cast<std::size_t>(groups) + 1, blocks);
  first_block[0] = 0;
  const double total = 0.5 * static_cast<double>(n) * static_cast<double>(n + kBlockRows);
  double done = 0;
  for (Index b = 0, g = 1; b < blocks && g < groups; ++b) {
    done += static_cast<double>(std::min(kBlockRows, n - b * kBlockRows)) * std::min(n, (b + 1) * kBlockRows);
    if (done >= total * static_cast<double>(g) / static_cast<double>(groups)) first_block[g++] = b + 1;
  }
  for_each_thread_share(groups, 1, [&](Index g0, Index g1) {
    Matrix block(std::min(kBlockRows, n), n);
    for (Index b = first_block[g0]; b < first_block[g1]; ++b) {
      const Index i0 = b * kBlockRows, rows = std::min(kBlockRows, n - i0), end = i0 + rows;
      auto product = block.topLeftCorner(rows, end);
      gemm(view_of(a.middleRows(i0, rows)), view_of(a.topRows(end)).transposed(), mutable_view_of(product),
           GemmUpdate::overwrite);
      for (Index j = 0; j < end; ++j) {
        const Index first = std::max<Index>(j - i0, 0);  // rows on or below the diagonal
        c.col(j).segment(i0 + first, rows - first) += alpha * product.col(j).segment(first, rows - first);
      }
    }
  });
}

}  // namespace gplvm

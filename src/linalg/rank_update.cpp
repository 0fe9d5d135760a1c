#include "gplvm/linalg/rank_update.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "gplvm/core/threads.hpp"
#include "gplvm/linalg/gemm.hpp"
#include "packed_gemm.hpp"

namespace gplvm {
namespace {

// Threads split the rows in groups of whole row blocks of this size, cut where the work (growing
// down the triangle) is shared evenly.
constexpr Index kBalanceRows = 48;
// Below this order Eigen's rankUpdate is used (at 100 the packed path is faster: bench_kernels on
// Zen 4, 37 against 33 GFLOP/s; nothing was measured below 100).
constexpr Index kMinBlockedOrder = 96;

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
  // Rows in any split give the same values (packed_rank_update_lower), so the rank's threads take
  // contiguous groups of rows with equal shares of the triangle's work.
  const Index blocks = (n + kBalanceRows - 1) / kBalanceRows;
  const Index groups = std::min<Index>(threads_per_rank(), blocks);
  std::vector<Index> first_block(static_cast<std::size_t>(groups) + 1, blocks);
  first_block[0] = 0;
  const double total = 0.5 * static_cast<double>(n) * static_cast<double>(n + kBalanceRows);
  double done = 0;
  for (Index b = 0, g = 1; b < blocks && g < groups; ++b) {
    done += static_cast<double>(std::min(kBalanceRows, n - b * kBalanceRows)) *
            static_cast<double>(std::min(n, (b + 1) * kBalanceRows));
    if (done >= total * static_cast<double>(g) / static_cast<double>(groups)) first_block[g++] = b + 1;
  }
  for_each_thread_share(groups, 1, [&](Index g0, Index g1) {
    detail::packed_rank_update_lower(view_of(a), alpha, mutable_view_of(c),
                                     std::min(n, first_block[g0] * kBalanceRows),
                                     std::min(n, first_block[g1] * kBalanceRows));
  });
}

}  // namespace gplvm

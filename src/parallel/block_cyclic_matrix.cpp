#include "gplvm/parallel/block_cyclic_matrix.hpp"

#include <limits>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/parallel/scalapack.hpp"

namespace gplvm {

Index BlockCyclicAxis::local_count(int proc) const noexcept {
  const Index blocks = (n + block - 1) / block;
  const Index shift = (proc - source + procs) % procs;  // which of the cyclic turns is ours
  if (shift >= blocks) return 0;
  const Index mine = (blocks - 1 - shift) / procs + 1;  // blocks shift, shift + procs, ...
  const bool has_last = (blocks - 1) % procs == shift;  // the last block may be short
  return mine * block - (has_last ? blocks * block - n : 0);
}

BlockCyclicMatrix::BlockCyclicMatrix(const BlacsGrid& grid, Index rows, Index cols, int row_block,
                                     int col_block, int row_source, int col_source)
    : grid_(&grid),
      row_axis_{rows, row_block, grid.nprow(), row_source},
      col_axis_{cols, col_block, grid.npcol(), col_source} {
  constexpr Index int_max = std::numeric_limits<int>::max();  // ScaLAPACK's indices are 32-bit
  require(rows >= 0 && cols >= 0 && rows <= int_max && cols <= int_max,
          "distributed matrix dimensions must be non-negative and within 32-bit range",
          {"", "shape", std::to_string(rows) + "x" + std::to_string(cols)});
  require(row_block >= 1 && col_block >= 1, "block sizes must be positive",
          {"", "block", std::to_string(row_block) + "x" + std::to_string(col_block)});
  require(row_source >= 0 && row_source < grid.nprow() && col_source >= 0 && col_source < grid.npcol(),
          "first block's process is outside the grid",
          {"", "source", std::to_string(row_source) + "," + std::to_string(col_source)});
  if (!grid.is_member()) {
    // Not in the grid: no local part, and context -1 tells pdgemr2d this rank holds nothing.
    const int m = static_cast<int>(rows), n = static_cast<int>(cols);
    descriptor_ = {1, -1, m, n, row_block, col_block, row_source, col_source, 1};
    return;
  }
  local_ = Matrix::Zero(row_axis_.local_count(grid.myrow()), col_axis_.local_count(grid.mycol()));
  descriptor_ = scalapack::descinit(rows, cols, row_block, col_block, row_source, col_source, grid.context(),
                                    std::max<Index>(1, local_.rows()));
}

bool BlockCyclicMatrix::owns(Index global_row, Index global_col) const noexcept {
  return grid_->is_member() && row_owner(global_row) == grid_->myrow() &&
         col_owner(global_col) == grid_->mycol();
}

Matrix BlockCyclicMatrix::gather_all() const {
  // Each entry lives on exactly one process: zeros elsewhere, and a sum puts it everywhere.
  Matrix all = Matrix::Zero(rows(), cols());
  for_each_local([&](Index i, Index j, const double& value) { all(i, j) = value; });
  grid_->communicator().allreduce_sum(all);
  return all;
}

}  // namespace gplvm

#include "gplvm/parallel/column_signs.hpp"

#include <cmath>
#include <limits>

namespace gplvm {
namespace {

// The lowest global row of `column` whose magnitude is within the tie tolerance of `largest`, or
// the int64 maximum if this rank has none.
std::int64_t first_near_largest(const ConstVectorRef& column, double largest, std::int64_t first_row) {
  for (Index i = 0; i < column.size(); ++i)
    if (std::abs(column[i]) >= largest * (1.0 - kSignTieTolerance)) return first_row + i;
  return std::numeric_limits<std::int64_t>::max();
}

}  // namespace

void fix_column_signs(MatrixRef local_columns, std::int64_t first_row, const Communicator& comm) {
  for (Index j = 0; j < local_columns.cols(); ++j) {
    auto column = local_columns.col(j);
    const double local_largest = column.size() ? column.cwiseAbs().maxCoeff() : 0.0;
    const double largest = comm.allreduce_max(local_largest);
    if (largest == 0.0) continue;
    const std::int64_t row = comm.allreduce_min(first_near_largest(column, largest, first_row));
    // The owner of that row knows its sign; the others contribute 0 to the sum.
    const Index local = row - first_row;
    const bool mine = local >= 0 && local < column.size();
    const double sign = comm.allreduce_sum(mine ? (column[local] < 0 ? -1.0 : 1.0) : 0.0);
    if (sign < 0) column *= -1.0;
  }
}

}  // namespace gplvm

#pragma once
// A sign convention for distributed eigenvectors (columns whose rows are split over the ranks), so
// that results compare across rank counts and solvers: each column is flipped so that its entry
// of largest magnitude is positive. Entries within a relative 1e-8 of that magnitude count as tied
// (rounding differs between rank counts), and the tie goes to the lowest global row.
#include <cstdint>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"

namespace gplvm {

inline constexpr double kSignTieTolerance = 1e-8;

// Collective: flips columns of `local_columns` (this rank's rows; its first row is global row
// `first_row`) in place. A zero column is left alone.
void fix_column_signs(MatrixRef local_columns, std::int64_t first_row, const Communicator& comm);

}  // namespace gplvm

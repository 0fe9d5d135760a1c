#pragma once
// Owning handles for PETSc matrices, a distributed sparse matrix built from this rank's rows, and a
// dense copy of this rank's rows (for checks and small problems).
#include <petscmat.h>

#include <cstdint>
#include <vector>

#include "gplvm/core/types.hpp"
#include "gplvm/parallel/communicator.hpp"
#include "gplvm/petsc/petsc_vector.hpp"

namespace gplvm {

using MatHandle = PetscHandle<Mat, MatDestroy>;

// This rank's rows of a sparse matrix: row i (global first_row + i) has the entries
// values[row_start[i] .. row_start[i + 1]) in the global columns `columns` (each once).
struct LocalSparseRows {
  std::int64_t num_columns = 0;
  std::int64_t first_row = 0;
  std::vector<std::int64_t> row_start{0};
  std::vector<std::int64_t> columns;
  std::vector<double> values;
};

// A square MATMPIAIJ matrix whose rows are split over the ranks as `rows` gives them (this rank owns
// rows.first_row onwards; the same split of the columns makes each rank's diagonal block), with
// exactly the given entries preallocated and set, assembled (collective). Adding a nonzero outside
// them later is an error rather than a silent reallocation.
MatHandle distributed_matrix(const LocalSparseRows& rows, const Communicator& comm);

// A Vec with the matrix's row layout holding `values` (this rank's entries).
VecHandle row_vector(Mat matrix, const ConstVectorRef& values);

// This rank's rows of `matrix` as a dense (local rows x global columns) block.
RowMatrix copy_local_rows(Mat matrix);

}  // namespace gplvm

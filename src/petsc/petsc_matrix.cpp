#include "gplvm/petsc/petsc_matrix.hpp"

#include <limits>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/petsc/petsc_error.hpp"

namespace gplvm {
namespace {

PetscInt petsc_index(std::int64_t value) {
  if (value > static_cast<std::int64_t>(std::numeric_limits<PetscInt>::max()))
    throw Error("index " + std::to_string(value) + " exceeds PETSc's index type");
  return static_cast<PetscInt>(value);
}

}  // namespace

MatHandle distributed_matrix(const LocalSparseRows& rows, const Communicator& comm) {
  require_petsc_session("a distributed sparse matrix");
  const auto local = static_cast<std::int64_t>(rows.row_start.size()) - 1;
  const std::int64_t last = rows.first_row + local;
  // Entries per row in this rank's diagonal block (its own columns) and outside it: PETSc's
  // preallocation, exact so that assembly allocates nothing.
  std::vector<PetscInt> diagonal(static_cast<std::size_t>(local), 0), off_diagonal(diagonal);
  for (std::int64_t i = 0; i < local; ++i)
    for (std::int64_t e = rows.row_start[i]; e < rows.row_start[i + 1]; ++e) {
      const std::int64_t c = rows.columns[static_cast<std::size_t>(e)];
      ++(c >= rows.first_row && c < last ? diagonal : off_diagonal)[static_cast<std::size_t>(i)];
    }
  MatHandle matrix;
  check_petsc(
      MatCreateAIJ(comm.raw(), petsc_index(local), petsc_index(local), petsc_index(rows.num_columns),
                   petsc_index(rows.num_columns), 0, diagonal.data(), 0, off_diagonal.data(), matrix.out()),
      "MatCreateAIJ");
  check_petsc(MatSetOption(matrix.get(), MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE), "MatSetOption");
  std::vector<PetscInt> columns;
  for (std::int64_t i = 0; i < local; ++i) {
    const std::int64_t begin = rows.row_start[i], end = rows.row_start[i + 1];
    columns.resize(static_cast<std::size_t>(end - begin));
    for (std::int64_t e = begin; e < end; ++e) columns[e - begin] = petsc_index(rows.columns[e]);
    const PetscInt row = petsc_index(rows.first_row + i);
    check_petsc(MatSetValues(matrix.get(), 1, &row, static_cast<PetscInt>(columns.size()), columns.data(),
                             rows.values.data() + begin, INSERT_VALUES),
                "MatSetValues");
  }
  check_petsc(MatAssemblyBegin(matrix.get(), MAT_FINAL_ASSEMBLY), "MatAssemblyBegin");
  check_petsc(MatAssemblyEnd(matrix.get(), MAT_FINAL_ASSEMBLY), "MatAssemblyEnd");
  return matrix;
}

VecHandle row_vector(Mat matrix, const ConstVectorRef& values) {
  VecHandle vec;
  check_petsc(MatCreateVecs(matrix, nullptr, vec.out()), "MatCreateVecs");
  copy_into(vec.get(), values);
  return vec;
}

RowMatrix copy_local_rows(Mat matrix) {
  PetscInt begin = 0, end = 0, rows = 0, columns = 0;
  check_petsc(MatGetOwnershipRange(matrix, &begin, &end), "MatGetOwnershipRange");
  check_petsc(MatGetSize(matrix, &rows, &columns), "MatGetSize");
  RowMatrix dense = RowMatrix::Zero(end - begin, columns);
  for (PetscInt row = begin; row < end; ++row) {
    PetscInt count = 0;
    const PetscInt* cols = nullptr;
    const PetscScalar* values = nullptr;
    check_petsc(MatGetRow(matrix, row, &count, &cols, &values), "MatGetRow");
    for (PetscInt e = 0; e < count; ++e) dense(row - begin, cols[e]) = values[e];
    check_petsc(MatRestoreRow(matrix, row, &count, &cols, &values), "MatRestoreRow");
  }
  return dense;
}

}  // namespace gplvm

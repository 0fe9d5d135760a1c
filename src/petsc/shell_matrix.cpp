#include "gplvm/petsc/shell_matrix.hpp"

#include <cmath>
#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/petsc/petsc_error.hpp"

namespace gplvm {
namespace {

struct ShellContext {
  ShellProduct product;
  double norm = 1.0;
};

ShellContext& context_of(Mat matrix) {
  void* context = nullptr;
  MatShellGetContext(matrix, &context);
  return *static_cast<ShellContext*>(context);
}

PetscErrorCode multiply(Mat matrix, Vec in, Vec out) {
  PetscInt local = 0;
  const PetscScalar* x = nullptr;
  PetscScalar* y = nullptr;
  PetscCall(VecGetLocalSize(in, &local));
  PetscCall(VecGetArrayRead(in, &x));
  PetscCall(VecGetArray(out, &y));
  PetscErrorCode code = 0;
  // An exception must not unwind through PETSc's C frames: it becomes a PETSc error.
  try {
    context_of(matrix).product(Eigen::Map<const Vector>(x, local), Eigen::Map<Vector>(y, local));
  } catch (...) {
    code = PETSC_ERR_USER;
  }
  PetscCall(VecRestoreArray(out, &y));
  PetscCall(VecRestoreArrayRead(in, &x));
  return code;
}

PetscErrorCode norm(Mat matrix, NormType, PetscReal* value) {
  *value = context_of(matrix).norm;
  return 0;
}

PetscErrorCode destroy_context(void* context) {
  delete static_cast<ShellContext*>(context);
  return 0;
}

}  // namespace

MatHandle shell_matrix(Index local_rows, Index global_rows, ShellProduct product, double norm_value,
                       const Communicator& comm) {
  require_petsc_session("a shell matrix");
  const std::int64_t total = comm.allreduce_sum(static_cast<std::int64_t>(local_rows));
  comm.agree_on_problem(total == global_rows
                            ? ""
                            : "the ranks' rows (" + std::to_string(total) +
                                  ") do not add up to the matrix's " + std::to_string(global_rows),
                        "shell.rows");
  require(std::isfinite(norm_value) && norm_value > 0, "a shell matrix's norm must be positive and finite",
          {"", "shell.norm", std::to_string(norm_value)});
  auto* context = new ShellContext{std::move(product), norm_value};
  MatHandle matrix;
  const PetscErrorCode created = MatCreateShell(
      comm.raw(), static_cast<PetscInt>(local_rows), static_cast<PetscInt>(local_rows),
      static_cast<PetscInt>(global_rows), static_cast<PetscInt>(global_rows), context, matrix.out());
  if (created != 0) delete context;
  check_petsc(created, "MatCreateShell");
  // From here the matrix owns the context and frees it when destroyed.
  check_petsc(MatShellSetContextDestroy(matrix.get(), destroy_context), "MatShellSetContextDestroy");
  check_petsc(MatShellSetOperation(matrix.get(), MATOP_MULT, reinterpret_cast<void (*)(void)>(multiply)),
              "MatShellSetOperation");
  check_petsc(MatShellSetOperation(matrix.get(), MATOP_NORM, reinterpret_cast<void (*)(void)>(norm)),
              "MatShellSetOperation");
  check_petsc(MatSetUp(matrix.get()), "MatSetUp");
  return matrix;
}

}  // namespace gplvm

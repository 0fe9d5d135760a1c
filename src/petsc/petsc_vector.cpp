#include "gplvm/petsc/petsc_vector.hpp"

#include "gplvm/petsc/petsc_error.hpp"

namespace gplvm {

void copy_into(Vec vec, const ConstVectorRef& values) {
  PetscScalar* data = nullptr;
  check_petsc(VecGetArray(vec, &data), "VecGetArray");
  for (Index i = 0; i < values.size(); ++i) data[i] = values[i];
  check_petsc(VecRestoreArray(vec, &data), "VecRestoreArray");
}

Vector copy_out(Vec vec) {
  PetscInt n = 0;
  check_petsc(VecGetLocalSize(vec, &n), "VecGetLocalSize");
  const PetscScalar* data = nullptr;
  check_petsc(VecGetArrayRead(vec, &data), "VecGetArrayRead");
  Vector out = n > 0 ? Vector(Eigen::Map<const Vector>(data, n)) : Vector(0);
  check_petsc(VecRestoreArrayRead(vec, &data), "VecRestoreArrayRead");
  return out;
}

}  // namespace gplvm

#pragma once
// Owning handles for PETSc objects, and copies between a PETSc Vec and an Eigen vector.
#include <petscvec.h>

#include <utility>

#include "gplvm/core/types.hpp"
#include "gplvm/petsc/petsc_session.hpp"

namespace gplvm {

// Owns one PETSc object, destroyed with `Destroy` while PETSc is alive (destroying it after
// PetscFinalize would touch freed PETSc state: it is leaked instead). Destroy errors are ignored:
// destructors must not throw.
template <typename Object, PetscErrorCode (*Destroy)(Object*)>
class PetscHandle {
 public:
  PetscHandle() = default;
  ~PetscHandle() {
    if (object_ && petsc_alive()) Destroy(&object_);
  }
  PetscHandle(const PetscHandle&) = delete;
  PetscHandle& operator=(const PetscHandle&) = delete;
  // Movable, so that a function can return the object it built.
  PetscHandle(PetscHandle&& other) noexcept : object_(other.object_) { other.object_ = nullptr; }
  PetscHandle& operator=(PetscHandle&& other) noexcept {
    std::swap(object_, other.object_);
    return *this;
  }
  Object get() const noexcept { return object_; }
  Object* out() noexcept { return &object_; }

 private:
  Object object_ = nullptr;
};

using VecHandle = PetscHandle<Vec, VecDestroy>;

// This rank's entries of `vec` set from `values` (which has the Vec's local size).
void copy_into(Vec vec, const ConstVectorRef& values);
// This rank's entries of `vec`.
Vector copy_out(Vec vec);

}  // namespace gplvm

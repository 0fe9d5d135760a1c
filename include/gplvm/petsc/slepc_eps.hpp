#pragma once
// An owning handle for SLEPc's eigenproblem solver (EPS), like MatHandle and VecHandle: destroyed
// while PETSc is alive, leaked after PetscFinalize. PetscSession initialises SLEPc, so an EPS may
// be created wherever a PETSc object may.
#include <slepceps.h>

#include "gplvm/petsc/petsc_vector.hpp"

namespace gplvm {

using EpsHandle = PetscHandle<EPS, EPSDestroy>;

}  // namespace gplvm

#include "gplvm/petsc/petsc_session.hpp"

#include <mpi.h>
#include <petscsys.h>
#include <slepcsys.h>

#include <string>

#include "gplvm/core/error.hpp"
#include "gplvm/petsc/petsc_error.hpp"

namespace gplvm {

PetscSession::PetscSession() {
  PetscBool initialised = PETSC_FALSE, finalised = PETSC_FALSE;
  check_petsc(PetscInitialized(&initialised), "PetscInitialized");
  if (initialised) return;
  // PETSc 3.18 does not register TAO's solvers again after PetscFinalize (TaoSetType then fails
  // with "Unable to find requested Tao type"), so a second initialisation is refused up front.
  check_petsc(PetscFinalized(&finalised), "PetscFinalized");
  if (finalised)
    throw Error(
        "PETSc was already finalised in this process and cannot be initialised again; keep one "
        "PetscSession alive for as long as the program uses PETSc");
  int mpi_initialised = 0;
  MPI_Initialized(&mpi_initialised);
  if (!mpi_initialised) throw Error("PETSc must be initialised after MPI (call MPI_Init first)");
  // Options set before PetscInitialize are honoured by it (see PetscOptionsSetValue).
  check_petsc(PetscOptionsSetValue(nullptr, "-skip_petscrc", nullptr), "PetscOptionsSetValue");
  check_petsc(PetscOptionsSetValue(nullptr, "-no_signal_handler", nullptr), "PetscOptionsSetValue");
  // SLEPc initialises PETSc itself and registers its eigensolvers; SlepcFinalize then finalises
  // PETSc too, so one call at each end serves both.
  check_petsc(SlepcInitializeNoArguments(), "SlepcInitializeNoArguments");
  owns_ = true;
}

PetscSession::~PetscSession() {
  if (!owns_) return;
  PetscBool finalised = PETSC_TRUE;
  int mpi_finalised = 1;
  PetscFinalized(&finalised);
  MPI_Finalized(&mpi_finalised);
  // After MPI_Finalize PETSc cannot free its communicators any more; leaking beats crashing.
  if (!finalised && !mpi_finalised) SlepcFinalize();
}

bool petsc_alive() noexcept {
  PetscBool initialised = PETSC_FALSE;
  return PetscInitialized(&initialised) == 0 && initialised;
}

void require_petsc_session(const char* user) {
  if (petsc_alive()) return;
  throw Error(std::string("PETSc is not initialised: create a gplvm::PetscSession after MPI_Init and keep it "
                          "alive while ") +
              user + " is used");
}

}  // namespace gplvm

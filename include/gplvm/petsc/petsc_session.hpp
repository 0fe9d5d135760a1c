#pragma once
// PETSc's lifetime in a process. Every PETSc user (TAO's L-BFGS today, SLEPc's eigensolvers) needs
// PETSc initialised once, after MPI and before any of its objects exist, and finalised once,
// before MPI: one session held by main() owns both ends.
//
// This header includes no PETSc header, so code that only holds a session does not see PETSc.

namespace gplvm {

// PETSc initialisation as a scope: initialises PETSc and SLEPc (collective over MPI_COMM_WORLD,
// through SlepcInitialize, which initialises PETSc first) unless PETSc already is, and finalises it on destruction only if this guard initialised it. MPI must already
// be initialised (PETSc then leaves MPI_Finalize to its owner), and the guard must be destroyed
// before MPI_Finalize. Guards nest; an inner one does nothing.
//
// Create one in main() right after MPI_Init and keep it for the whole program: PETSc 3.18 cannot
// be initialised again after PetscFinalize (TAO's solver types are not re-registered), so a second
// initialisation in one process is refused with an Error, and PETSc's users do not initialise
// PETSc on their own (they throw if no session is alive: require_petsc_session).
//
// When it initialises, PETSc gets no command line, skips the ~/.petscrc, .petscrc and petscrc
// files and installs no signal handlers: PETSc's handlers would replace the SIGTERM/SIGUSR1
// handlers that stop training cleanly (core/stop_signals.hpp). PETSC_OPTIONS from the environment
// is still read (PETSc always does); it can enable PETSc's logging, not change a solver, since no
// object of the project calls a SetFromOptions.
class PetscSession {
 public:
  PetscSession();
  ~PetscSession();
  PetscSession(const PetscSession&) = delete;
  PetscSession& operator=(const PetscSession&) = delete;

  bool owns_initialisation() const noexcept { return owns_; }

 private:
  bool owns_ = false;
};

// Whether PETSc is initialised and not yet finalised (its objects may be created and destroyed).
bool petsc_alive() noexcept;
// Error naming `user` unless a PetscSession (or another owner) has initialised PETSc.
void require_petsc_session(const char* user);

}  // namespace gplvm

#pragma once
// A rank that Open MPI's launcher started (its parent process is mpirun / orterun / prterun or a
// daemon, orted / prted) dies with that parent (Linux PR_SET_PDEATHSIG, SIGKILL). A launcher killed
// with SIGKILL forwards nothing: without this its ranks go on training and writing checkpoints until
// Open MPI notices the lost launcher (about 2 s), racing whatever the scheduler starts next on the
// same files. Ranks of other launchers (Slurm's srun) and a process run without one are untouched:
// a plain `gplvm train` must outlive the shell that started it.
namespace gplvm {

void end_with_mpi_launcher();

}  // namespace gplvm

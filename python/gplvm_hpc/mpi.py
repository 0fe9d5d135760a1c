"""How gplvm's ranks are started with Open MPI's mpirun, here or inside a Slurm job, and the environment each
rank gets (the choices jobs/lib/gplvm-job.sh makes for the Slurm job scripts).
"""

import os
import shutil


def available_cores():
    """Cores this process may run on (its CPU affinity, not the machine's count)."""
    return len(os.sched_getaffinity(0))


def rank_environment(n_threads):
    """Threads per rank for OpenBLAS and OpenMP; Open MPI refuses to run as root without the two OMPI_ flags."""
    environment = {"OPENBLAS_NUM_THREADS": str(n_threads), "OMP_NUM_THREADS": str(n_threads)}
    if os.geteuid() == 0:
        environment.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return environment


def mpirun_command(argv, n_ranks, n_threads, oversubscribe):
    """argv on n_ranks ranks under mpirun; oversubscribe when there are more ranks than slots."""
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        raise FileNotFoundError(f"n_ranks={n_ranks} needs mpirun on PATH (Debian package openmpi-bin)")
    command = [mpirun, "-n", str(n_ranks)]
    if oversubscribe:
        command.append("--oversubscribe")
    if n_threads > 1:
        command += ["--bind-to", "none"]  # Open MPI binds each rank to one core: no room for its threads
    command += ["-x", "OPENBLAS_NUM_THREADS", "-x", "OMP_NUM_THREADS"]  # also to ranks on other nodes
    return command + list(argv)

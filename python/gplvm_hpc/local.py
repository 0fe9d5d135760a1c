"""A gplvm command on this machine: the executable itself for one rank, under mpirun for several.

Its stdout (the JSON summary) and stderr (progress) go to files in the call's scratch directory; stderr is
followed while it runs. The command runs in its own session, so a Ctrl-C in a terminal reaches only Python,
which then stops the command itself (SIGTERM: gplvm checkpoints and exits).
"""

import os
import subprocess

from . import mpi, progress

STDOUT = "stdout.txt"
STDERR = "stderr.txt"


def run(argv, n_ranks, n_threads, scratch, on_line):
    """Runs argv on n_ranks ranks; returns the exit code. Output: scratch/stdout.txt, scratch/stderr.txt."""
    command = list(argv)
    if n_ranks > 1:
        command = mpi.mpirun_command(argv, n_ranks, n_threads, oversubscribe=n_ranks > mpi.available_cores())
    environment = dict(os.environ, **mpi.rank_environment(n_threads))
    stderr_path = os.path.join(scratch, STDERR)
    with open(os.path.join(scratch, STDOUT), "wb") as out, open(stderr_path, "wb") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=scratch,
                                   env=environment, start_new_session=True)
    follower = progress.FileFollower(stderr_path, on_line)
    return progress.wait_following(process, follower, lambda: progress.stop(process))

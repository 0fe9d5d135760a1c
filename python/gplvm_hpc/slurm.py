"""A gplvm command as a Slurm batch job: `sbatch --wait` on a script that starts the ranks with mpirun
inside the allocation (one task per rank, `--cpus-per-task` threads each).

The job writes its stdout and stderr into the call's scratch directory, which must therefore be on a file
system the compute nodes share (the estimator's `work_dir`); its stderr is followed while the job runs, and
a KeyboardInterrupt cancels the job.
"""

import os
import shlex
import shutil
import subprocess

from . import local, mpi, progress
from .errors import GPLVMError

SCRIPT = "job.sbatch"
SBATCH_STDOUT = "sbatch.out"
SBATCH_STDERR = "sbatch.err"

# sbatch options the launcher sets itself: they say where the job's output goes and how many ranks it has.
MANAGED_OPTIONS = ("ntasks", "cpus-per-task", "output", "error", "chdir", "wait", "parsable")


def sbatch_options(options):
    """`slurm_options` ({'time': '01:00:00', 'partition': 'short', 'exclusive': True}) as sbatch arguments."""
    arguments = []
    for name, value in (options or {}).items():
        if not isinstance(name, str) or not name or name.startswith("-"):
            raise ValueError(f"slurm_options key {name!r} must be an sbatch long option without dashes, e.g. 'time'")
        if name in MANAGED_OPTIONS:
            raise ValueError(f"slurm_options[{name!r}] is set by the estimator (n_ranks, n_threads, work_dir)")
        if value is True:
            arguments.append(f"--{name}")
        elif value is not False and value is not None:
            arguments.append(f"--{name}={value}")
    return arguments


def job_script(command, environment):
    """The batch script: the rank environment, then the command (mpirun takes its slots from the allocation)."""
    exports = "".join(f"export {name}={shlex.quote(value)}\n" for name, value in environment.items())
    return f"#!/bin/bash\n{exports}exec {shlex.join(command)}\n"


def _job_id(scratch):
    try:
        with open(os.path.join(scratch, SBATCH_STDOUT)) as out:
            return out.read().split(";")[0].strip() or None  # --parsable: "id" or "id;cluster"
    except FileNotFoundError:
        return None


def _cancel(process, scratch):
    job = _job_id(scratch)
    if job is not None and shutil.which("scancel"):
        subprocess.run(["scancel", job], check=False)
    progress.stop(process)


def run(argv, n_ranks, n_threads, options, scratch, on_line):
    """Submits argv as a job of n_ranks tasks and waits for it; returns the job's exit code."""
    sbatch = shutil.which("sbatch")
    if sbatch is None:
        raise FileNotFoundError("launcher='slurm' needs sbatch on PATH (Debian package slurm-client)")
    script = os.path.join(scratch, SCRIPT)
    with open(script, "w") as out:
        out.write(job_script(mpi.mpirun_command(argv, n_ranks, n_threads, oversubscribe=False),
                             mpi.rank_environment(n_threads)))
    stderr_path = os.path.join(scratch, local.STDERR)
    submit = [sbatch, "--parsable", "--wait", f"--job-name=gplvm-{argv[1]}", f"--ntasks={n_ranks}",
              f"--cpus-per-task={n_threads}", f"--chdir={scratch}",
              f"--output={os.path.join(scratch, local.STDOUT)}", f"--error={stderr_path}",
              *sbatch_options(options), script]
    with open(os.path.join(scratch, SBATCH_STDOUT), "wb") as out, \
            open(os.path.join(scratch, SBATCH_STDERR), "wb") as err:
        process = subprocess.Popen(submit, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=scratch,
                                   start_new_session=True)
    follower = progress.FileFollower(stderr_path, on_line)
    returncode = progress.wait_following(process, follower, lambda: _cancel(process, scratch))
    if _job_id(scratch) is None:
        with open(os.path.join(scratch, SBATCH_STDERR), errors="replace") as err:
            raise GPLVMError(f"sbatch did not submit the job (exit code {returncode}): {err.read().strip()}",
                             exit_code=returncode)
    return returncode

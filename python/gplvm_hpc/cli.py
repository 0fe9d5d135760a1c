"""One gplvm command run to completion, here or as a Slurm job: its JSON summary (`--json`), or the exception
its failure becomes.
"""

import json
import os
from dataclasses import dataclass
from typing import Callable, Optional

from . import errors, local, progress, slurm

LAUNCHERS = ("local", "slurm")


@dataclass(frozen=True)
class Launch:
    """How commands run: the executable, ranks and threads per rank, where, and what is shown meanwhile."""

    executable: str
    n_ranks: int = 1
    n_threads: int = 1
    launcher: str = "local"
    slurm_options: Optional[dict] = None
    verbose: int = 0
    progress: Optional[Callable[[str], None]] = None


def _positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def make_launch(executable, n_ranks, n_threads, launcher, slurm_options, verbose, progress_callback):
    """A Launch from estimator parameters, each refused with its name when it is out of range."""
    if launcher not in LAUNCHERS:
        raise ValueError(f"launcher must be one of {', '.join(map(repr, LAUNCHERS))}, got {launcher!r}")
    if slurm_options is not None and not isinstance(slurm_options, dict):
        raise TypeError(f"slurm_options must be a dict of sbatch options, got {type(slurm_options).__name__}")
    slurm.sbatch_options(slurm_options)  # refuses bad entries now rather than at the first submission
    if isinstance(verbose, bool):
        verbose = int(verbose)
    if verbose not in (0, 1, 2):
        raise ValueError(f"verbose must be 0, 1 or 2 (or a bool), got {verbose!r}")
    if progress_callback is not None and not callable(progress_callback):
        raise TypeError(f"progress must be a function taking one line, got {progress_callback!r}")
    return Launch(executable, _positive_int("n_ranks", n_ranks), _positive_int("n_threads", n_threads),
                  launcher, slurm_options, verbose, progress_callback)


def _last_json_object(path):
    """The last line of gplvm's stdout that is a JSON object (its summary or its error), or None."""
    try:
        with open(path, errors="replace") as out:
            lines = out.read().splitlines()
    except FileNotFoundError:
        return None
    for line in reversed(lines):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                return None
    return None


def _read(path):
    try:
        with open(path, errors="replace") as text:
            return text.read()
    except FileNotFoundError:
        return ""


def run_command(launch, command, arguments, scratch, parameter_for_key=lambda key: None):
    """Runs `gplvm COMMAND ARGUMENTS --json` with its files in `scratch`; returns the summary as a dict.

    Raises GPLVMInputError (exit code 2) or GPLVMError naming the message, the configuration key and the
    estimator parameter that set it.
    """
    argv = [launch.executable, command, *arguments, "--json"]
    on_line = progress.LineFilter(launch.verbose, launch.progress or (lambda line: print(line, flush=True)))
    if launch.launcher == "slurm":
        returncode = slurm.run(argv, launch.n_ranks, launch.n_threads, launch.slurm_options, scratch, on_line)
    else:
        returncode = local.run(argv, launch.n_ranks, launch.n_threads, scratch, on_line)
    reply = _last_json_object(os.path.join(scratch, local.STDOUT))
    if returncode == 0 and reply is not None and "error" not in reply:
        return reply
    log = _read(os.path.join(scratch, local.STDERR))
    if returncode == 0:  # a launcher that reports success although gplvm never ran
        raise errors.GPLVMError(f"gplvm {command} exited 0 but printed no JSON summary\n{log[-2000:]}")
    error = reply if reply is not None and "error" in reply else None
    raise errors.command_error(command, returncode, error, log, parameter_for_key)

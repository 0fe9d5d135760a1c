#!/usr/bin/python3
"""How the estimators run the command line: parameters as configuration overrides (read back from the run's
/config), errors naming the parameter at fault, progress lines, Ctrl-C, ranks under mpirun beyond the core
count, where the executable is found, and the Slurm launcher through stand-in sbatch and scancel commands
(the real Slurm is tested by test_slurm.py).

usage: /usr/bin/python3 tests/python/test_launchers.py GPLVM_EXECUTABLE
"""

import os
import re
import stat
import tomllib

import h5py
import numpy as np
from common import GPLVM, low_rank_rows, run_tests

from gplvm_hpc import GPLVM as Estimator
from gplvm_hpc import GPLVMError, GPLVMInputError, executable, mpi, options

ROWS = low_rank_rows(40)
SMALL = {"sas.batch_size": 16, "sas.active_size": 8, "model.encoder_hidden": [8]}


def small_model(**parameters):
    parameters.setdefault("config", SMALL)
    parameters.setdefault("epochs", 2)
    return Estimator(executable=GPLVM, **parameters)


def expect(exception, call, *fragments):
    try:
        call()
    except exception as raised:
        for fragment in fragments:
            assert fragment in str(raised), f"{fragment!r} not in: {raised}"
        return raised
    raise AssertionError(f"{exception.__name__} not raised")


def test_values_reach_the_cli_as_written(tmp):
    assert options.format_value("x", True) == "true"
    assert options.format_value("x", np.int64(3)) == "3"
    assert options.format_value("x", 0.1) == "0.1"
    assert options.format_value("x", [8, 4]) == "[8, 4]"
    assert options.format_value("x", ["a b", 'c"d']) == '["a b", "c\\"d"]'
    config = {**SMALL, "model.encoder_hidden": [8, 4], "model.fixed_hyperparameters": ["0.log_variance"],
              "train.learning_rate": 0.002, "data.center": True}
    model = small_model(kernel="eq_ard+linear", latent_dim=3, seed=7, config=config).fit(ROWS)
    with h5py.File(model.run_path_, "r") as run:
        resolved = tomllib.loads(run["/config"][()].decode())
    assert resolved["model"]["encoder_hidden"] == [8, 4]
    assert resolved["model"]["fixed_hyperparameters"] == ["0.log_variance"]
    assert resolved["model"]["kernel"] == "eq_ard+linear"
    assert resolved["model"]["latent_dim"] == 3 and model.embedding_.shape == (40, 3)
    assert resolved["train"]["learning_rate"] == 0.002 and resolved["train"]["seed"] == 7
    assert resolved["train"]["epochs"] == 2 and resolved["data"]["center"] is True


def test_bad_parameters_are_refused_by_name(tmp):
    expect(ValueError, lambda: small_model(kind="sas", config={**SMALL, "model.kind": "vae"}).fit(ROWS),
           "model.kind is given twice", "kind='sas'")
    expect(ValueError, lambda: small_model(config={"output.path": "x.h5"}).fit(ROWS), "'output.path'")
    expect(ValueError, lambda: small_model(config={"epochs": 3}).fit(ROWS), "'epochs'", "section.key")
    expect(ValueError, lambda: small_model(n_ranks=0).fit(ROWS), "n_ranks")
    expect(ValueError, lambda: small_model(launcher="ssh").fit(ROWS), "launcher")
    expect(ValueError, lambda: small_model(slurm_options={"ntasks": 4}).fit(ROWS), "slurm_options['ntasks']")
    expect(ValueError, lambda: small_model(kind="probdr").fit(ROWS), "ProbDR")


def test_cli_errors_name_the_parameter_at_fault(tmp):
    # A sparse model has at most one inducing input per row: 100 by default, and 40 rows here.
    raised = expect(GPLVMInputError, lambda: small_model(kind="sparse_gplvm", config={"sparse.inducing": 41}).fit(ROWS),
                    "gplvm train failed (exit code 2)", "set by config['sparse.inducing']")
    assert raised.exit_code == 2 and raised.key == "sparse.inducing" and isinstance(raised, ValueError)
    expect(GPLVMInputError, lambda: small_model(kind="sparse_gplvm", config={}).fit(ROWS),
           "gplvm's default; set it with config={'sparse.inducing': ...}")
    expect(GPLVMInputError, lambda: small_model(kernel="no_such_kernel").fit(ROWS), "set by kernel")
    assert issubclass(GPLVMInputError, GPLVMError)


def test_progress_lines_follow_verbose(tmp):
    seen = {level: [] for level in (0, 1, 2)}
    for level, lines in seen.items():
        small_model(verbose=level, progress=lines.append, config={**SMALL, "train.progress_seconds": 0.001}).fit(ROWS)
    assert seen[0] == []
    assert any(re.match(r"epoch \d+ step \d+/\d+ objective ", line) for line in seen[1]), seen[1]
    assert not any(line.startswith(("#", "[", "kind =")) for line in seen[1]), seen[1]
    assert "# resolved configuration" in seen[2] and 'kind = "sas"' in seen[2]


def processes_naming(text):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def test_ctrl_c_stops_the_command_and_removes_its_files(tmp):
    def interrupt(line):
        raise KeyboardInterrupt

    model = small_model(verbose=2, progress=interrupt, work_dir=tmp, epochs=100000)
    expect(KeyboardInterrupt, lambda: model.fit(ROWS))
    assert os.listdir(tmp) == [], os.listdir(tmp)
    assert processes_naming(tmp) == [], "gplvm still running after the interrupt"


def test_more_ranks_than_cores_are_oversubscribed(tmp):
    ranks = mpi.available_cores() + 1
    command = mpi.mpirun_command(["gplvm", "train"], ranks, 2, oversubscribe=True)
    assert command[1:] == ["-n", str(ranks), "--oversubscribe", "--bind-to", "none", "-x", "OPENBLAS_NUM_THREADS",
                           "-x", "OMP_NUM_THREADS", "gplvm", "train"], command
    config = {**SMALL, "train.reproducible": True}
    one = small_model(config=config).fit(ROWS)
    many = small_model(config=config, n_ranks=ranks).fit(ROWS)
    assert many.summary_["ranks"] == ranks
    assert np.array_equal(one.embedding_, many.embedding_)


def test_the_executable_is_found_in_order(tmp):
    saved = dict(os.environ)
    try:
        link = os.path.join(tmp, "gplvm")
        os.symlink(GPLVM, link)
        os.environ["PATH"] = tmp
        os.environ.pop(executable.ENVIRONMENT_VARIABLE, None)
        assert executable.find_executable() == link  # PATH
        os.environ[executable.ENVIRONMENT_VARIABLE] = GPLVM
        assert executable.find_executable() == GPLVM  # the environment before PATH
        assert executable.find_executable(link) == link  # the parameter before both
        expect(FileNotFoundError, lambda: executable.find_executable(os.path.join(tmp, "none")), "executable =")
        os.environ[executable.ENVIRONMENT_VARIABLE] = os.path.join(tmp, "none")
        expect(FileNotFoundError, executable.find_executable, executable.ENVIRONMENT_VARIABLE)
        del os.environ[executable.ENVIRONMENT_VARIABLE]
        os.environ["PATH"] = os.path.join(tmp, "empty")
        if os.access(executable.BUILD_TREE_EXECUTABLE, os.X_OK):
            assert executable.find_executable() == executable.BUILD_TREE_EXECUTABLE
        else:
            expect(FileNotFoundError, executable.find_executable, "executable=", "GPLVM_EXECUTABLE", "PATH")
    finally:
        os.environ.clear()
        os.environ.update(saved)


# sbatch --parsable --wait as far as the launcher sees it: prints a job id, then runs the job in the
# foreground with its output where --output/--error/--chdir say, and exits with the job's exit code.
STAND_IN_SBATCH = """#!/bin/bash
printf '%s\\n' "$@" > "$STAND_IN_LOG/sbatch.args"
for a in "$@"; do
  case $a in --output=*) out=${a#--output=} ;; --error=*) err=${a#--error=} ;; --chdir=*) dir=${a#--chdir=} ;; esac
done
echo 4242
cd "$dir" && exec bash "${@: -1}" >"$out" 2>"$err"
"""
STAND_IN_SCANCEL = """#!/bin/bash
printf '%s\\n' "$@" > "$STAND_IN_LOG/scancel.args"
"""


def install_stand_ins(directory):
    for name, text in (("sbatch", STAND_IN_SBATCH), ("scancel", STAND_IN_SCANCEL)):
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, stat.S_IRWXU)


def read_lines(path):
    with open(path) as f:
        return f.read().splitlines()


def test_slurm_launcher_submits_waits_and_cancels(tmp):
    bin_dir, work = os.path.join(tmp, "bin"), os.path.join(tmp, "work")
    os.mkdir(bin_dir)
    os.mkdir(work)
    install_stand_ins(bin_dir)
    saved = dict(os.environ)
    os.environ.update(PATH=f"{bin_dir}:{os.environ['PATH']}", STAND_IN_LOG=tmp)
    try:
        lines = []
        slurm = small_model(launcher="slurm", slurm_options={"time": "00:05:00", "exclusive": True}, work_dir=work,
                            verbose=1, progress=lines.append, config={**SMALL, "train.progress_seconds": 0.001})
        latents = slurm.fit_transform(ROWS)
        arguments = read_lines(os.path.join(tmp, "sbatch.args"))
        for expected in ("--parsable", "--wait", "--ntasks=1", "--cpus-per-task=1", "--time=00:05:00", "--exclusive"):
            assert expected in arguments, (expected, arguments)
        assert np.array_equal(latents, small_model().fit_transform(ROWS))
        assert any(line.startswith("epoch ") for line in lines), lines
        assert np.array_equal(slurm.transform(ROWS[:5]), latents[:5])  # encode goes through Slurm too

        def interrupt(line):
            raise KeyboardInterrupt

        cancelled = small_model(launcher="slurm", work_dir=work, verbose=2, progress=interrupt, epochs=100000)
        expect(KeyboardInterrupt, lambda: cancelled.fit(ROWS))
        assert read_lines(os.path.join(tmp, "scancel.args")) == ["4242"]
        assert processes_naming(work) == [], "the job still running after the interrupt"
    finally:
        os.environ.clear()
        os.environ.update(saved)


if __name__ == "__main__":
    run_tests(test_values_reach_the_cli_as_written, test_bad_parameters_are_refused_by_name,
              test_cli_errors_name_the_parameter_at_fault, test_progress_lines_follow_verbose,
              test_ctrl_c_stops_the_command_and_removes_its_files, test_more_ranks_than_cores_are_oversubscribed,
              test_the_executable_is_found_in_order, test_slurm_launcher_submits_waits_and_cancels)

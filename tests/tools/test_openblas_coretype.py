#!/usr/bin/python3
"""scripts/openblas_coretype.sh and bench/bench_run.use_openblas_coretype: the OPENBLAS_CORETYPE the demo and the
benchmark scripts run with.

  - a value already set is kept, whatever gplvm would advise;
  - unset, the helper prints what `gplvm --openblas-coretype` prints, with a note on stderr when that is a value,
    and that is the value gplvm's own warning names in a training run's note (nothing where it warns of nothing):
    checked on this machine's CPU with the real gplvm, and for a fallback with a stand-in gplvm;
  - without a gplvm it prints nothing and succeeds;
  - bench_run.use_openblas_coretype puts the helper's value into the environment every later run inherits.

Usage: test_openblas_coretype.py GPLVM_EXECUTABLE; plain asserts, exits non-zero on failure.
"""

import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HELPER = os.path.join(REPO, "scripts", "openblas_coretype.sh")
GPLVM = sys.argv[1]


def environment(coretype=None):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if coretype is not None:
        env["OPENBLAS_CORETYPE"] = coretype
    return env


def helper(gplvm, coretype=None):
    return subprocess.run(["bash", HELPER, gplvm], env=environment(coretype), capture_output=True, text=True,
                          timeout=60)


def stand_in(tmp, answer):
    """A gplvm that answers --openblas-coretype with `answer`, as on a CPU OpenBLAS does not recognise."""
    path = os.path.join(tmp, f"gplvm_{answer or 'none'}")
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\n[ "$1" = --openblas-coretype ] && echo "{answer}"\n')
    os.chmod(path, 0o755)
    return path


def test_a_set_value_is_kept(tmp):
    r = helper(stand_in(tmp, "SkylakeX"), coretype="Haswell")
    assert r.returncode == 0 and r.stdout == "Haswell\n", (r.stdout, r.stderr)


def test_a_fallback_is_replaced_and_said(tmp):
    r = helper(stand_in(tmp, "SkylakeX"))
    assert r.returncode == 0 and r.stdout == "SkylakeX\n", (r.stdout, r.stderr)
    assert "OPENBLAS_CORETYPE=SkylakeX" in r.stderr, r.stderr
    r = helper(stand_in(tmp, ""))
    assert r.returncode == 0 and r.stdout.strip() == "" and r.stderr == "", (r.stdout, r.stderr)
    r = helper(os.path.join(tmp, "no_gplvm_here"))
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", (r.stdout, r.stderr)


def test_the_value_is_what_gplvm_warns_of(tmp):
    with h5py.File(os.path.join(tmp, "data.h5"), "w") as f:
        f["/Y"] = np.random.default_rng(0).standard_normal((40, 3))
    run = subprocess.run([GPLVM, "train", "--data.path=data.h5", "--model.kind=sparse_gplvm", "--sparse.inducing=5",
                          "--train.max_steps=1", "--output.path=run.h5"], cwd=tmp, env=environment(),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    note = next(line for line in run.stderr.splitlines() if "OpenBLAS kernels:" in line)
    advised = re.search(r"set OPENBLAS_CORETYPE=(\w+)", note)
    r = helper(GPLVM)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == (advised.group(1) if advised else ""), (r.stdout, note)
    r = helper(GPLVM, coretype="Zen")
    assert r.stdout == "Zen\n", r.stdout


def test_bench_run_sets_the_environment(tmp):
    sys.path.insert(0, os.path.join(REPO, "bench"))
    import bench_run  # noqa: E402
    saved = os.environ.pop("OPENBLAS_CORETYPE", None)
    try:
        bench_run.use_openblas_coretype(stand_in(tmp, "SkylakeX"))
        assert bench_run.env_for(1)["OPENBLAS_CORETYPE"] == "SkylakeX"
        os.environ.pop("OPENBLAS_CORETYPE")
        bench_run.use_openblas_coretype(stand_in(tmp, ""))
        assert "OPENBLAS_CORETYPE" not in bench_run.env_for(1)
    finally:
        os.environ.pop("OPENBLAS_CORETYPE", None)
        if saved is not None:
            os.environ["OPENBLAS_CORETYPE"] = saved


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for test in (test_a_set_value_is_kept, test_a_fallback_is_replaced_and_said, test_the_value_is_what_gplvm_warns_of,
                     test_bench_run_sets_the_environment):
            test(tmp)
            print(f"ok {test.__name__}")


if __name__ == "__main__":
    main()

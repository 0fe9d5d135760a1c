#!/usr/bin/python3
"""The package installs offline with Debian 12's pip and setuptools, and the installed copy works.

A copy of python/ (pip builds in the folder it is given, and the source tree stays untouched) is
  - resolved as a system-wide install would be (`pip install --dry-run`): its dependencies are Debian's
    packages, nothing is looked for on an index;
  - installed into a target folder (`pip install --no-deps --target`), from which a fresh interpreter,
    outside the source tree, imports gplvm_hpc and fits a model with it.

usage: /usr/bin/python3 tests/python/test_pip_install.py GPLVM_EXECUTABLE
"""

import os
import shutil
import subprocess
import sys

from common import GPLVM, PACKAGE_DIR, run_tests

OFFLINE = ["--no-build-isolation", "--no-index", "--disable-pip-version-check", "--no-cache-dir"]


def pip(tmp, *args):
    done = subprocess.run([sys.executable, "-m", "pip", "install", *OFFLINE, *args], cwd=tmp, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, f"pip install {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def copy_of_the_package(tmp):
    copy = os.path.join(tmp, "python")
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    return copy


def test_dependencies_resolve_offline(tmp):
    out = pip(tmp, "--dry-run", "--break-system-packages", copy_of_the_package(tmp))
    assert "Would install gplvm-hpc-0.1.0" in out, out


INSTALLED_USE = """
import os, sys
import numpy as np
import gplvm_hpc
from gplvm_hpc import GPLVM
assert gplvm_hpc.__file__.startswith(sys.argv[1]), gplvm_hpc.__file__
rows = np.random.default_rng(0).standard_normal((30, 4))
model = GPLVM(epochs=1, config={"sas.batch_size": 8, "sas.active_size": 4, "model.encoder_hidden": [4]},
              executable=sys.argv[2])
assert model.fit_transform(rows).shape == (30, 2)
print("fitted from", os.path.dirname(gplvm_hpc.__file__))
"""


def test_installed_copy_imports_and_fits(tmp):
    target = os.path.join(tmp, "target")
    pip(tmp, "--no-deps", "--target", target, copy_of_the_package(tmp))
    # Outside the source tree, with only the target folder added to the interpreter's path.
    done = subprocess.run([sys.executable, "-c", INSTALLED_USE, target, GPLVM], cwd=tmp, capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, PYTHONPATH=target))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"fitted from {os.path.join(target, 'gplvm_hpc')}" in done.stdout, done.stdout


if __name__ == "__main__":
    run_tests(test_dependencies_resolve_offline, test_installed_copy_imports_and_fits)

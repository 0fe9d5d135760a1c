"""Shared by the tests of the Python package (python/gplvm_hpc): the package imported from this source tree
(not an installed copy), the gplvm executable given as the first argument, the CLI run directly as the
independent reference, and a runner of test functions.

usage of a test: /usr/bin/python3 tests/python/test_NAME.py GPLVM_EXECUTABLE
"""

import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE_DIR = os.path.join(REPO, "python")
sys.path.insert(0, PACKAGE_DIR)

if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
    sys.exit(f"usage: {sys.argv[0]} GPLVM_EXECUTABLE")
GPLVM = os.path.abspath(sys.argv[1])


def cli(cwd, *args):
    """gplvm ARGS in cwd on one rank, as a user would run it; its --json summary when it printed one."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([GPLVM, *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, f"gplvm {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    last = done.stdout.strip().splitlines()[-1:] if done.stdout.strip() else []
    return json.loads(last[0]) if last and last[0].startswith("{") else None


def digits(rows):
    """The first `rows` of scikit-learn's digits (8 x 8 images, values 0-16) scaled to [0, 1]."""
    from sklearn.datasets import load_digits

    return load_digits().data[:rows] / 16.0


def low_rank_rows(rows, width=6, noise=0.05, seed=0):
    """Rows of a rank-2 linear map of Gaussian latents plus a little noise: data a GPLVM explains well."""
    rng = np.random.default_rng(seed)
    latents = rng.standard_normal((rows, 2))
    return latents @ rng.standard_normal((2, width)) + noise * rng.standard_normal((rows, width))


def run_tests(*tests):
    """Runs each test(tmp) in a fresh temporary directory; exits 1 if any failed."""
    failed = []
    for test in tests:
        start = time.time()
        with tempfile.TemporaryDirectory(prefix="gplvm-python-test-") as tmp:
            try:
                test(tmp)
                print(f"ok   {test.__name__} ({time.time() - start:.1f} s)", flush=True)
            except Exception:  # noqa: BLE001  (report every failure, then fail)
                failed.append(test.__name__)
                print(f"FAIL {test.__name__} ({time.time() - start:.1f} s)\n{traceback.format_exc()}", flush=True)
    if failed:
        sys.exit(f"{len(failed)} failed: {', '.join(failed)}")

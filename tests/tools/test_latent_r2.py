#!/usr/bin/python3
"""Test tools/latent_r2.py: learned latents that are an affine map of the true ones score 1, latents
independent of them score about 0 (against the closed form for Gaussian noise), and missing input
exits 2.

Plain asserts, no pytest: run with /usr/bin/python3 tests/tools/test_latent_r2.py; exits non-zero on failure.
"""

import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "tools", "latent_r2.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=120)


def r2_of(run_file, data_file):
    result = run(run_file, data_file, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["affine_r2"]


def main():
    rng = np.random.default_rng(3)
    n = 2000
    true = rng.standard_normal((n, 2))
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data.h5")
        with h5py.File(data, "w") as f:
            f["/latent_true"] = true
        cases = {
            "affine": true @ np.array([[2.0, -1.0, 0.5], [0.3, 4.0, 1.0]]) + 7.0,  # Q = 3 > 2
            "independent": rng.standard_normal((n, 2)),
        }
        for name, latents in cases.items():
            with h5py.File(os.path.join(tmp, name + ".h5"), "w") as f:
                f["/latent/mean"] = latents
        assert abs(r2_of(os.path.join(tmp, "affine.h5"), data) - 1.0) < 1e-12
        # Regressing on 2 independent regressors plus an intercept explains about 3/n of the variance.
        assert abs(r2_of(os.path.join(tmp, "independent.h5"), data)) < 0.01
        missing = run(os.path.join(tmp, "nope.h5"), data)
        assert missing.returncode == 2 and "nope.h5" in missing.stderr, missing.stderr
        with h5py.File(os.path.join(tmp, "short.h5"), "w") as f:
            f["/latent/mean"] = np.zeros((n - 1, 2))
        assert run(os.path.join(tmp, "short.h5"), data).returncode == 2
    print("test_latent_r2: ok")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""gplvm predict on hyperbolic (lorentz) runs against a NumPy reference.

Small runs on the synthetic binary tree (depth 3): the point hGP-LVM (exact on lorentz) and amortised sas and
bayesian_sas on lorentz. At points of the hyperboloid (Q + 1 columns, time-like first) predict must equal the exact
GP predictive computed here from the run's latents, hyperparameters and preprocessing with the hyperboloid_exp
kernel k(x, x') = variance exp(-arccosh(-<x, x'>_L) / kappa):
    mean k_x^T (K + s2 I)^{-1} Y,   variance k(x, x) + s2 - k_x^T (K + s2 I)^{-1} k_x   (in the data's units).
Bad input: Q columns instead of Q + 1, and a row off the sheet, exit 2 naming the file, dataset and first bad row,
with no output written.

Usage: test_predict_lorentz.py GPLVM_EXECUTABLE MPIEXEC [MPI flags...]; plain asserts, exits non-zero on failure.
"""

import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))
import gplvm_run  # noqa: E402

GPLVM = sys.argv[1]
MPIEXEC = sys.argv[2:]
COMMON = ["--data.path=tree.h5", "--model.latent_space=lorentz", "--model.kernel=hyperboloid_exp",
          "--model.lengthscale=2", "--model.latent_dim=2"]


def gplvm(tmp, *args, ranks=1):
    command = [*MPIEXEC, "-n", str(ranks), GPLVM, *args] if ranks > 1 else [GPLVM, *args]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run(command, cwd=tmp, capture_output=True, text=True, timeout=300, env=env)


def hyperboloid_exp(a, b, variance, kappa):
    # d = 2 asinh(|a - b|_L / 2): on the sheet <a - b, a - b>_L = 2 (cosh d - 1), and unlike arccosh(-<a, b>_L)
    # this keeps its digits for nearby points (trained latents are close).
    chord = (a[:, None, 1:] - b[None, :, 1:]) ** 2
    chord = chord.sum(-1) - (a[:, None, 0] - b[None, :, 0]) ** 2
    distance = 2.0 * np.arcsinh(np.sqrt(np.maximum(chord, 0.0)) / 2.0)
    return variance * np.exp(-distance / kappa)


def lift(spatial):
    return np.column_stack([np.sqrt(1.0 + (spatial**2).sum(1)), spatial])


def numpy_predictive(tmp, run_name, xs):
    with h5py.File(os.path.join(tmp, run_name), "r") as run, h5py.File(os.path.join(tmp, "tree.h5"), "r") as data:
        x = run["/latent/mean"][()]
        variance = float(run["/params/kernel/variance"][()])
        kappa = float(run["/params/kernel/kappa"][()])
        noise = float(run["/params/noise_variance"][()])
        shift, scale = run["/preprocess/mean"][()], run["/preprocess/scale"][()]
        y = (data["/Y"][()] - shift) / scale
    k = hyperboloid_exp(x, x, variance, kappa) + noise * np.eye(len(x))
    ks = hyperboloid_exp(xs, x, variance, kappa)
    mean = ks @ np.linalg.solve(k, y) * scale + shift
    var = variance + noise - np.einsum("ij,ji->i", ks, np.linalg.solve(k, ks.T))
    return mean, var[:, None] * scale[None, :] ** 2


def train_runs(tmp):
    r = gplvm(tmp, "generate", "--kind", "binary_tree", "--depth", "3", "--seed", "1", "--output", "tree.h5")
    assert r.returncode == 0, r.stderr
    runs = {
        "exact.h5": ["--model.kind=exact", "--exact.max_iterations=40"],
        "sas.h5": ["--model.kind=sas", "--train.epochs=3", "--sas.batch_size=70", "--sas.active_size=40"],
        "bayesian_sas.h5": ["--model.kind=bayesian_sas", "--train.epochs=3", "--sas.batch_size=70",
                            "--sas.active_size=40"],
    }
    for name, args in runs.items():
        r = gplvm(tmp, "train", *COMMON, *args, f"--output.path={name}")
        assert r.returncode == 0, r.stderr
    return list(runs)


def test_predict_equals_numpy(tmp, runs):
    rng = np.random.default_rng(3)
    points = lift(rng.uniform(-3.0, 3.0, (37, 2)))  # 37 rows: uneven over 3 ranks; far out too (x_0 up to 4.4)
    gplvm_run.write_latents(os.path.join(tmp, "points.h5"), points)
    for run_name in runs:
        mean, var = numpy_predictive(tmp, run_name, points)
        for ranks in (1, 3) if run_name == "exact.h5" else (2,):
            out = f"pred_{ranks}_{run_name}"
            r = gplvm(tmp, "predict", "--run", run_name, "--latents", "points.h5", "--output", out, ranks=ranks)
            assert r.returncode == 0, (run_name, r.stderr)
            p = gplvm_run.load_predictions(os.path.join(tmp, out))
            np.testing.assert_array_equal(p.latent_mean, points)
            np.testing.assert_allclose(p.mean, mean, rtol=1e-8, atol=1e-10)
            with h5py.File(os.path.join(tmp, out), "r") as f:
                stored = f["/predictive/variance"][()]  # N x 1 unless data.standardize made it N x D
                assert f["/latent/mean"].attrs["latent_space"] in (b"lorentz", "lorentz")
            expected = var if stored.shape[1] == var.shape[1] else var[:, :1]
            np.testing.assert_allclose(stored, expected, rtol=1e-8, atol=1e-12)
            assert (p.variance > 0).all()


def test_predict_refuses_points_off_the_sheet(tmp):
    rng = np.random.default_rng(4)
    points = lift(rng.uniform(-1.0, 1.0, (9, 2)))
    gplvm_run.write_latents(os.path.join(tmp, "spatial.h5"), points[:, 1:])
    r = gplvm(tmp, "predict", "--run", "exact.h5", "--latents", "spatial.h5", "--output", "bad.h5")
    assert r.returncode == 2 and "spatial.h5" in r.stderr and "3 (lorentz)" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(tmp, "bad.h5"))
    off = points.copy()
    off[6, 0] *= 1.0 + 1e-6  # <x, x>_L + 1 is about -2e-6 x_0^2: off the sheet
    off[7, 0] = -off[7, 0]   # the lower sheet: a later bad row, not the one named
    gplvm_run.write_latents(os.path.join(tmp, "off.h5"), off)
    for ranks in (1, 3):
        r = gplvm(tmp, "predict", "--run", "sas.h5", "--latents", "off.h5", "--output", "bad.h5", ranks=ranks)
        assert r.returncode == 2, r.stderr
        assert "off.h5" in r.stderr and "/latent/mean" in r.stderr and "row 6" in r.stderr, r.stderr
        assert "hyperboloid" in r.stderr, r.stderr
        assert not os.path.exists(os.path.join(tmp, "bad.h5"))
    nearly = points.copy()
    nearly[2, 0] *= 1.0 + 1e-12  # rounding-sized deviations are accepted
    gplvm_run.write_latents(os.path.join(tmp, "nearly.h5"), nearly)
    r = gplvm(tmp, "predict", "--run", "sas.h5", "--latents", "nearly.h5", "--output", "ok.h5")
    assert r.returncode == 0, r.stderr


def main():
    with tempfile.TemporaryDirectory() as tmp:
        runs = train_runs(tmp)
        test_predict_equals_numpy(tmp, runs)
        test_predict_refuses_points_off_the_sheet(tmp)
    print("predict on lorentz runs: all checks passed")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""gplvm predict, export and free-latent encode end to end, against NumPy references, and tools/gplvm_run.py.

A small exact GPLVM run is trained on data drawn from a GP; then
  - predict (1 and 3 ranks) must equal the exact GP predictive computed here with NumPy from the run's
    latents, hyperparameters and training data: mean k_x^T (K + s2 I)^{-1} Y, variance k(x,x) + s2 - k_x^T (K + s2 I)^{-1} k_x;
  - predict refuses an output that is one of its inputs, and latents of the wrong dimension (exit 2);
  - predict --grid predicts the same on the grid NumPy lays over the latents' box or the given limits, and refuses
    bad grid values naming the option (exit 2, no output);
  - export (npy and csv) must round-trip through numpy.load / numpy.loadtxt to what h5py reads from the run;
  - encode of the training rows (free latents: inferred) must land near the trained latents, and evaluate must
    infer the same latents and predict the NumPy exact GP there;
  - gplvm_run's loaders must return what h5py reads.
(tools/latent_mosaic.py: tests/tools/test_latent_plots.py.)

Usage: test_predict_export.py GPLVM_EXECUTABLE MPIEXEC [MPI flags...]; plain asserts, exits non-zero on failure.
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


def gplvm(tmp, *args, ranks=1):
    command = [*MPIEXEC, "-n", str(ranks), GPLVM, *args] if ranks > 1 else [GPLVM, *args]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run(command, cwd=tmp, capture_output=True, text=True, timeout=300, env=env)


def eq_ard(a, b, variance, lengthscales):
    d = (a[:, None, :] - b[None, :, :]) / lengthscales
    return variance * np.exp(-0.5 * (d**2).sum(-1))


def train_run(tmp):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((60, 2))
    k = eq_ard(x, x, 1.0, np.ones(2)) + 1e-2 * np.eye(60)
    y = np.linalg.cholesky(k) @ rng.standard_normal((60, 5))
    with h5py.File(os.path.join(tmp, "train.h5"), "w") as f:
        f["/Y"] = y
        f["/labels"] = (x[:, 0] > 0).astype(np.int64)
    r = gplvm(tmp, "train", "--data.path=train.h5", "--model.kind=exact", "--model.latents=free",
              "--model.lengthscale=1.0", "--exact.max_iterations=300", "--output.path=run.h5")
    assert r.returncode == 0, r.stderr


def numpy_predictive(tmp, xs):
    with h5py.File(os.path.join(tmp, "run.h5"), "r") as run, h5py.File(os.path.join(tmp, "train.h5"), "r") as data:
        x = run["/latent/mean"][()]
        variance = float(run["/params/kernel/variance"][()])
        lengthscales = run["/params/kernel/lengthscales"][()]
        noise = float(run["/params/noise_variance"][()])
        y = data["/Y"][()]
    k = eq_ard(x, x, variance, lengthscales) + noise * np.eye(len(x))
    ks = eq_ard(xs, x, variance, lengthscales)
    mean = ks @ np.linalg.solve(k, y)
    var = variance + noise - np.einsum("ij,ji->i", ks, np.linalg.solve(k, ks.T))
    return mean, var


def test_predict_equals_numpy_exact_gp(tmp):
    g = np.linspace(-2.5, 2.5, 7)
    grid = np.array([[a, b] for a in g for b in g])  # 49 points: uneven over 3 ranks
    gplvm_run.write_latents(os.path.join(tmp, "grid.h5"), grid)
    mean, var = numpy_predictive(tmp, grid)
    for ranks in (1, 3):
        out = f"pred{ranks}.h5"
        r = gplvm(tmp, "predict", "--run", "run.h5", "--latents", "grid.h5", "--output", out, ranks=ranks)
        assert r.returncode == 0, r.stderr
        p = gplvm_run.load_predictions(os.path.join(tmp, out))
        np.testing.assert_allclose(p.latent_mean, grid, rtol=0, atol=0)
        np.testing.assert_allclose(p.mean, mean, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(p.variance, var, rtol=1e-8, atol=1e-12)
        assert (p.variance > 0).all()


def test_predict_refuses_bad_inputs(tmp):
    gplvm_run.write_latents(os.path.join(tmp, "q3.h5"), np.zeros((4, 3)))
    r = gplvm(tmp, "predict", "--run", "run.h5", "--latents", "q3.h5", "--output", "bad.h5")
    assert r.returncode == 2 and "q3.h5" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(tmp, "bad.h5"))
    before = os.path.getmtime(os.path.join(tmp, "run.h5"))
    r = gplvm(tmp, "predict", "--run", "run.h5", "--latents", "grid.h5", "--output", "./run.h5")
    assert r.returncode == 2 and "--run" in r.stderr, r.stderr
    assert os.path.getmtime(os.path.join(tmp, "run.h5")) == before


def test_predict_on_a_grid(tmp):
    """--grid N: N x N points, first coordinate fastest, over the latents' box grown by 0.1 of its width per side
    (--padding) or over --grid-limits; the predictions there are the NumPy exact GP's, at 1 and 3 ranks."""
    with h5py.File(os.path.join(tmp, "run.h5"), "r") as run:
        latents = run["/latent/mean"][()]
    low, high = latents.min(0), latents.max(0)
    margin = 0.1 * (high - low)
    boxes = {(): (low - margin, high + margin), ("--grid-limits", "-1,2,-3,0.5"): ([-1, -3], [2, 0.5])}
    for extra, (box_low, box_high) in boxes.items():
        axes = [np.linspace(box_low[c], box_high[c], 6) for c in range(2)]
        expected = np.array([[x, y] for y in axes[1] for x in axes[0]])
        mean, var = numpy_predictive(tmp, expected)
        for ranks in (1, 3):
            r = gplvm(tmp, "predict", "--run", "run.h5", "--grid", "6", *extra, "--output", f"grid{ranks}.h5",
                      ranks=ranks)
            assert r.returncode == 0, r.stderr
            p = gplvm_run.load_predictions(os.path.join(tmp, f"grid{ranks}.h5"))
            np.testing.assert_allclose(p.latent_mean, expected, rtol=0, atol=1e-14)
            np.testing.assert_allclose(p.mean, mean, rtol=1e-8, atol=1e-10)
            np.testing.assert_allclose(p.variance, var, rtol=1e-8, atol=1e-12)
            with h5py.File(os.path.join(tmp, f"grid{ranks}.h5"), "r") as f:
                assert f.attrs["latents"] == b"grid" and f["/latent/mean"].attrs["grid"] == 6


def test_predict_grid_refuses_bad_values(tmp):
    """Each bad value exits 2 naming its option, and writes nothing."""
    r = gplvm(tmp, "train", "--data.path=train.h5", "--model.kind=exact", "--model.latents=free",
              "--model.latent_dim=4", "--exact.max_iterations=5", "--output.path=q4.h5")
    assert r.returncode == 0, r.stderr
    r = gplvm(tmp, "train", "--data.path=train.h5", "--model.kind=exact", "--model.latents=free",
              "--model.latent_space=lorentz", "--model.kernel=hyperboloid_exp", "--exact.max_iterations=5",
              "--output.path=lorentz.h5")
    assert r.returncode == 0, r.stderr
    cases = [(["--grid", "1"], "--grid"), (["--grid", "6x"], "--grid"), (["--grid", "100001"], "--grid"),
             (["--grid", "6", "--grid-limits", "0,1"], "--grid-limits"),
             (["--grid", "6", "--grid-limits", "0,1,1,0"], "--grid-limits"),
             (["--grid", "6", "--grid-limits", "0,1,0,nan"], "--grid-limits"),
             (["--grid", "6", "--grid-limits", "0,1,0,1,"], "--grid-limits"),
             (["--grid", "6", "--grid-limits", "0,1,0,1", "--padding", "0.2"], "--padding"),
             (["--grid", "6", "--padding", "-1"], "--padding"),
             (["--grid-limits", "0,1,0,1", "--latents", "grid.h5"], "--grid-limits"),
             (["--grid", "6", "--latents", "grid.h5"], "--grid"), ([], "--latents"),
             (["--run", "q4.h5", "--grid", "6"], "--grid"), (["--run", "lorentz.h5", "--grid", "6"], "--grid")]
    for args, option in cases:
        run = [] if "--run" in args else ["--run", "run.h5"]
        r = gplvm(tmp, "predict", *run, *args, "--output", "bad_grid.h5")
        assert r.returncode == 2 and option in r.stderr, (args, r.returncode, r.stderr)
        assert not os.path.exists(os.path.join(tmp, "bad_grid.h5")), args


def test_export_round_trips(tmp):
    with h5py.File(os.path.join(tmp, "run.h5"), "r") as run:
        mean = run["/latent/mean"][()]
        labels = run["/labels"][()]
        hyper = {"kernel/variance": float(run["/params/kernel/variance"][()]),
                 "noise_variance": float(run["/params/noise_variance"][()])}
        for i, v in enumerate(run["/params/kernel/lengthscales"][()]):
            hyper[f"kernel/lengthscales/{i}"] = float(v)
    for fmt in ("npy", "csv"):
        # A trailing slash names the same folder ("created if absent", as the help says).
        r = gplvm(tmp, "export", "--run", "run.h5", "--format", fmt, "--output", f"export_{fmt}/")
        assert r.returncode == 0, r.stderr
        d = os.path.join(tmp, f"export_{fmt}")
        names = ("latent_mean", "labels", "hyperparameters", "preprocess_mean", "preprocess_scale")
        assert sorted(os.listdir(d)) == sorted(f"{n}.{fmt}" for n in names)
        if fmt == "npy":
            got_mean = np.load(os.path.join(d, "latent_mean.npy"))
            got_labels = np.load(os.path.join(d, "labels.npy"))
            table = np.load(os.path.join(d, "hyperparameters.npy"))
            got_hyper = {n.decode(): float(v) for n, v in zip(table["name"], table["value"])}
            assert got_labels.dtype == np.int64
        else:
            got_mean = np.loadtxt(os.path.join(d, "latent_mean.csv"), delimiter=",", skiprows=1)
            got_labels = np.loadtxt(os.path.join(d, "labels.csv"), delimiter=",", skiprows=1, dtype=np.int64)
            table = np.loadtxt(os.path.join(d, "hyperparameters.csv"), delimiter=",", skiprows=1, dtype=str)
            got_hyper = {n: float(v) for n, v in table}
        np.testing.assert_array_equal(got_mean, mean)  # exact: 17 significant digits in CSV
        np.testing.assert_array_equal(got_labels, labels)
        assert got_hyper == hyper, (got_hyper, hyper)
    r = gplvm(tmp, "export", "--run", "run.h5", "--format", "json", "--output", "export_json")
    assert r.returncode == 2 and "json" in r.stderr, r.stderr
    assert not os.path.exists(os.path.join(tmp, "export_json"))


def test_free_latent_encode_recovers_training_latents(tmp):
    """Conditioning on 30 of the 60 rows: a conditioned row starts at its own latent and must stay near it; a
    held-out row starts at its nearest conditioned row's latent and the ascent must bring it near its own."""
    inferred = {}
    for steps in (0, 50):
        out = f"enc{steps}.h5"
        r = gplvm(tmp, "encode", "--run", "run.h5", "--data", "train.h5", "--output", out, "--infer-condition", "30",
                  "--infer-steps", str(steps), ranks=2)
        assert r.returncode == 0, r.stderr
        inferred[steps] = gplvm_run.load_encoded(os.path.join(tmp, out)).latent_mean
    trained = gplvm_run.load_run(os.path.join(tmp, "run.h5")).latent_mean
    spread = np.linalg.norm(trained - trained.mean(0), axis=1).mean()
    start_error = np.linalg.norm(inferred[0] - trained, axis=1)
    error = np.linalg.norm(inferred[50] - trained, axis=1)
    conditioned = start_error == 0
    assert conditioned.sum() == 30, conditioned.sum()
    assert np.median(error[conditioned]) < 0.05 * spread, (np.median(error[conditioned]), spread)
    held_out = ~conditioned
    assert np.median(error[held_out]) < 0.1 * spread, (np.median(error[held_out]), spread)
    assert np.median(error[held_out]) < 0.5 * np.median(start_error[held_out])

    # evaluate infers the same latents (same options) and predicts the exact GP there.
    r = gplvm(tmp, "evaluate", "--run", "run.h5", "--test", "train.h5", "--condition", "0", "--infer-condition", "30",
              "--infer-steps", "50", "--output", "eval.h5", ranks=3)
    assert r.returncode == 0, r.stderr
    evaluated = gplvm_run.load_predictions(os.path.join(tmp, "eval.h5"))
    # 2 and 3 ranks: products over other row counts round differently, and an ascent step accepted by a
    # last-bit margin on one and not the other moves a latent by ~1e-8.
    np.testing.assert_allclose(evaluated.latent_mean, inferred[50], rtol=0, atol=1e-6)
    mean, var = numpy_predictive(tmp, evaluated.latent_mean)
    np.testing.assert_allclose(evaluated.mean, mean, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(evaluated.variance, var, rtol=1e-8, atol=1e-12)


def test_gplvm_run_loads_what_h5py_reads(tmp):
    run = gplvm_run.load_run(os.path.join(tmp, "run.h5"))
    with h5py.File(os.path.join(tmp, "run.h5"), "r") as f:
        np.testing.assert_array_equal(run.latent_mean, f["/latent/mean"][()])
        np.testing.assert_array_equal(run.labels, f["/labels"][()])
        np.testing.assert_array_equal(run.lengthscales(), f["/params/kernel/lengthscales"][()])
        assert run.hyperparameters["noise_variance"] == float(f["/params/noise_variance"][()])
        assert run.attributes["model"] == "exact" and run.attributes["num_data"] == 60
        assert run.curve["step"].shape[0] == f["/train/curve"].shape[0]
    assert run.latent_var is None and "[model]" in run.config
    try:
        gplvm_run.load_run(os.path.join(tmp, "missing.h5"))
        raise AssertionError("no InputProblem for a missing file")
    except gplvm_run.InputProblem as e:
        assert "missing.h5" in str(e)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        train_run(tmp)
        for test in (test_predict_equals_numpy_exact_gp, test_predict_refuses_bad_inputs, test_predict_on_a_grid,
                     test_predict_grid_refuses_bad_values, test_export_round_trips,
                     test_free_latent_encode_recovers_training_latents, test_gplvm_run_loads_what_h5py_reads):
            test(tmp)
            print(f"ok    {test.__name__}")
    print("all predict/export tests passed")


if __name__ == "__main__":
    main()

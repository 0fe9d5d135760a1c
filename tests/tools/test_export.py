#!/usr/bin/python3
"""gplvm export end to end, against h5py and NumPy.

  - the output folder is created with the missing folders above it (a trailing slash names the same folder);
    an output under a file, or a run that cannot be read, exits 2 and creates nothing;
  - every exported array (npy and csv) equals what h5py reads from the run file, and the files are exactly
    the ones docs/run-file.md lists for the run;
  - the exported arrays of a sparse GPLVM (inducing inputs, q(u), hyperparameters, preprocessing) are the whole
    predictive: NumPy computes from them what `gplvm predict` writes;
  - the exported basepoint and tangent basis of a run on the sphere map predict's tangent means to its points
    (Exp_mu of B t), and a linear basepoint's map is exported too.

Usage: test_export.py GPLVM_EXECUTABLE; plain asserts, exits non-zero on failure.
"""

import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

GPLVM = sys.argv[1]

SPARSE_FILES = ["latent_mean", "hyperparameters", "inducing_inputs", "inducing_posterior_mean",
                "inducing_posterior_covariance", "preprocess_mean", "preprocess_scale"]
SPARSE_DATASETS = {"latent_mean": "/latent/mean", "inducing_inputs": "/params/inducing",
                   "inducing_posterior_mean": "/params/inducing_posterior/mean",
                   "inducing_posterior_covariance": "/params/inducing_posterior/covariance",
                   "preprocess_mean": "/preprocess/mean", "preprocess_scale": "/preprocess/scale"}


def gplvm(tmp, *args):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run([GPLVM, *args], cwd=tmp, capture_output=True, text=True, timeout=300, env=env)


def eq_ard(a, b, variance, lengthscales):
    d = (a[:, None, :] - b[None, :, :]) / lengthscales
    return variance * np.exp(-0.5 * (d**2).sum(-1))


def train_sparse_run(tmp):
    """A minibatch sparse GPLVM (explicit q(u)) on data far from zero mean and unit scale, centred and
    standardised."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((60, 2))
    k = eq_ard(x, x, 1.0, np.ones(2)) + 1e-2 * np.eye(60)
    y = np.linalg.cholesky(k) @ rng.standard_normal((60, 5)) * np.arange(1, 6) + np.array([10, -5, 0, 1, 2])
    with h5py.File(os.path.join(tmp, "sparse_data.h5"), "w") as f:
        f["/Y"] = y
    r = gplvm(tmp, "train", "--data.path=sparse_data.h5", "--model.kind=sparse_gplvm", "--sparse.training=minibatch",
              "--sparse.inducing=8", "--sas.batch_size=20", "--train.max_steps=30", "--data.center=true",
              "--data.standardize=true", "--model.lengthscale=1.0", "--output.path=sparse.h5")
    assert r.returncode == 0, r.stderr


def load_export(directory, fmt, name):
    path = os.path.join(directory, f"{name}.{fmt}")
    if fmt == "npy":
        return np.load(path)
    with open(path) as f:
        header = f.readline().strip().split(",")
    values = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2 if len(header) > 1 else 1)
    return values


def test_output_directory(tmp):
    r = gplvm(tmp, "export", "--run", "sparse.h5", "--format", "npy", "--output", "made/for/export/")
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(os.path.join(tmp, "made/for/export"))) == sorted(f"{n}.npy" for n in SPARSE_FILES)

    open(os.path.join(tmp, "a_file"), "w").close()
    before = sorted(os.listdir(tmp))
    r = gplvm(tmp, "export", "--run", "sparse.h5", "--format", "npy", "--output", "a_file/arrays/")
    assert r.returncode == 2 and "--output" in r.stderr and "a_file" in r.stderr, r.stderr
    r = gplvm(tmp, "export", "--run", "sparse.h5", "--format", "npy", "--output", "sparse.h5")
    assert r.returncode == 2 and "not a directory" in r.stderr, r.stderr
    r = gplvm(tmp, "export", "--run", "a_file", "--format", "npy", "--output", "never/made/")
    assert r.returncode == 2 and "a_file" in r.stderr, r.stderr
    assert sorted(os.listdir(tmp)) == before, sorted(os.listdir(tmp))


def test_arrays_equal_the_run_file(tmp):
    with h5py.File(os.path.join(tmp, "sparse.h5"), "r") as run:
        expected = {name: run[path][()] for name, path in SPARSE_DATASETS.items()}
    for fmt in ("npy", "csv"):
        d = os.path.join(tmp, f"sparse_{fmt}")
        r = gplvm(tmp, "export", "--run", "sparse.h5", "--format", fmt, "--output", d)
        assert r.returncode == 0, r.stderr
        assert sorted(os.listdir(d)) == sorted(f"{n}.{fmt}" for n in SPARSE_FILES), os.listdir(d)
        for name, values in expected.items():
            got = load_export(d, fmt, name)
            assert got.shape == values.shape, (name, got.shape, values.shape)
            np.testing.assert_array_equal(got, values, err_msg=name)  # CSV: 17 significant digits
    with open(os.path.join(tmp, "sparse_csv", "inducing_inputs.csv")) as f:
        assert f.readline().strip() == "z_0,z_1"
    with open(os.path.join(tmp, "sparse_csv", "preprocess_scale.csv")) as f:
        assert f.readline().strip() == "scale"


def test_exported_arrays_give_the_predictive(tmp):
    """mean = k_x^T K^-1 m, variance = k(x,x) - k_x^T K^-1 k_x + k_x^T K^-1 S K^-1 k_x + s2 in the model's units
    (K with the jitter 1e-6 mean(diag K) the bounds use), then back to the data's units by the preprocessing."""
    d = os.path.join(tmp, "sparse_npy")
    z = np.load(os.path.join(d, "inducing_inputs.npy"))
    m = np.load(os.path.join(d, "inducing_posterior_mean.npy"))
    s = np.load(os.path.join(d, "inducing_posterior_covariance.npy"))
    table = np.load(os.path.join(d, "hyperparameters.npy"))
    hyper = {n.decode(): float(v) for n, v in zip(table["name"], table["value"])}
    centre, scale = np.load(os.path.join(d, "preprocess_mean.npy")), np.load(os.path.join(d, "preprocess_scale.npy"))
    assert np.abs(centre).min() > 0 and np.abs(scale - 1).min() > 0  # the preprocessing is not the identity
    np.testing.assert_allclose(s, s.T, rtol=0, atol=0)
    assert np.linalg.eigvalsh(s).min() > 0

    variance, noise = hyper["kernel/variance"], hyper["noise_variance"]
    lengthscales = np.array([hyper["kernel/lengthscales/0"], hyper["kernel/lengthscales/1"]])
    # Where the inducing points say something: at them and between them (k_x far from zero).
    xs = np.vstack([z, 0.5 * (z[:-1] + z[1:])])
    with h5py.File(os.path.join(tmp, "at.h5"), "w") as f:
        f["/latent/mean"] = xs
    kzz = eq_ard(z, z, variance, lengthscales)
    kzz += 1e-6 * np.diag(kzz).mean() * np.eye(len(z))
    a = np.linalg.solve(kzz, eq_ard(z, xs, variance, lengthscales))  # K^-1 k_x, M x n
    kx = eq_ard(z, xs, variance, lengthscales)
    mean = a.T @ m
    var = variance - np.einsum("mi,mi->i", kx, a) + np.einsum("mi,mn,ni->i", a, s, a) + noise

    r = gplvm(tmp, "predict", "--run", "sparse.h5", "--latents", "at.h5", "--output", "pred.h5")
    assert r.returncode == 0, r.stderr
    with h5py.File(os.path.join(tmp, "pred.h5"), "r") as p:
        np.testing.assert_allclose(p["/predictive/mean"][()], mean * scale + centre, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(p["/predictive/variance"][()], var[:, None] * scale**2, rtol=1e-9, atol=1e-12)


def sphere_exp(mu, v):
    norm = np.linalg.norm(v, axis=1, keepdims=True)
    return np.cos(norm) * mu + np.sin(norm) * v / np.where(norm > 0, norm, 1)


def test_output_space_arrays(tmp):
    r = gplvm(tmp, "generate", "--kind", "sphere_curve", "--n", "30", "--output", "sphere.h5")
    assert r.returncode == 0, r.stderr
    for run, extra in (("sphere_run.h5", []), ("sphere_linear.h5", ["--model.basepoint=linear"])):
        r = gplvm(tmp, "train", "--data.path=sphere.h5", f"--output.path={run}", "--model.kind=exact",
                  "--model.output_space=sphere", *extra)
        assert r.returncode == 0, r.stderr
        d = os.path.join(tmp, run + "_arrays")
        r = gplvm(tmp, "export", "--run", run, "--format", "npy", "--output", d)
        assert r.returncode == 0, r.stderr
        mu, basis = np.load(os.path.join(d, "output_basepoint.npy")), np.load(os.path.join(d, "output_tangent_basis.npy"))
        with h5py.File(os.path.join(tmp, run), "r") as f:
            np.testing.assert_array_equal(mu, f["/output_space/basepoint"][()])
            np.testing.assert_array_equal(basis, f["/output_space/tangent_basis"][()])
            linear = "/params/basepoint_map" in f
            if linear:
                np.testing.assert_array_equal(np.load(os.path.join(d, "basepoint_map.npy")), f["/params/basepoint_map"][()])
        assert os.path.exists(os.path.join(d, "basepoint_map.npy")) == linear == bool(extra)
    # The constant basepoint's chart: predict's points are Exp_mu of the tangent means in the basis B.
    d = os.path.join(tmp, "sphere_run.h5_arrays")
    mu, basis = np.load(os.path.join(d, "output_basepoint.npy")), np.load(os.path.join(d, "output_tangent_basis.npy"))
    np.testing.assert_allclose(basis.T @ basis, np.eye(basis.shape[1]), atol=1e-12)
    np.testing.assert_allclose(basis.T @ mu, 0, atol=1e-12)
    r = gplvm(tmp, "predict", "--run", "sphere_run.h5", "--latents", "sphere_run.h5", "--output", "sphere_pred.h5")
    assert r.returncode == 0, r.stderr
    with h5py.File(os.path.join(tmp, "sphere_pred.h5"), "r") as p:
        tangent, points = p["/predictive/tangent_mean"][()], p["/predictive/mean"][()]
    np.testing.assert_allclose(sphere_exp(mu, tangent @ basis.T), points, rtol=0, atol=1e-12)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        train_sparse_run(tmp)
        for test in (test_output_directory, test_arrays_equal_the_run_file, test_exported_arrays_give_the_predictive,
                     test_output_space_arrays):
            test(tmp)
            print(f"ok {test.__name__}")


if __name__ == "__main__":
    main()

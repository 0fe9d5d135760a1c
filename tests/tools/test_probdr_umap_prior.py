#!/usr/bin/python3
"""Test scripts/probdr_umap_prior_samples.py, the ProbDR-UMAP generative model's prior samples:

  - edges: only i < j is ever drawn, and each A'_ij's frequency over many graphs matches
    1 / (1 + a d^(2b)) to Monte Carlo tolerance;
  - the normalised Laplacian is symmetric with eigenvalues in [0, 2], annihilates D^(1/2) 1 on a
    connected graph, and an isolated vertex (zero degree, pseudo-inverse 0) gets the identity's row
    and column, eigenvalue 1, no NaN;
  - the sampled y has covariance exp(-t L~): the empirical covariance of many draws at small n equals
    SciPy's expm(-t L~) entry by entry within five standard errors;
  - the command line writes a PNG and an .npz with the arrays it promises.

Plain asserts, no pytest: run with /usr/bin/python3 tests/tools/test_probdr_umap_prior.py; exits non-zero on failure.
"""

import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.linalg import expm

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "probdr_umap_prior_samples.py")


def load_script():
    spec = importlib.util.spec_from_file_location("probdr_umap_prior_samples", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_edges(m):
    rng = np.random.default_rng(1)
    x = np.array([-2.0, -1.5, 0.0, 0.3, 2.5])
    a, b = 2.0, 1.0
    w = m.edge_probabilities(x, a, b)
    assert np.allclose(w, 1.0 / (1.0 + a * (x[:, None] - x[None, :]) ** 2))
    draws = 20000
    total = np.zeros((5, 5))
    for _ in range(draws):
        directed = m.sample_directed_adjacency(x, rng, a, b)
        assert np.all(np.tril(directed) == 0), "A' must be strictly upper triangular (i < j only)"
        total += directed
    freq = total / draws
    upper = np.triu(np.ones((5, 5), dtype=bool), k=1)
    se = np.sqrt(w * (1 - w) / draws)
    assert np.all(np.abs(freq - w)[upper] <= 5 * se[upper] + 1e-12), (freq, w)
    # b != 1: the kernel is 1 / (1 + a |d|^(2b)).
    assert np.allclose(m.edge_probabilities(x, 1.5, 0.8),
                       1.0 / (1.0 + 1.5 * np.abs(x[:, None] - x[None, :]) ** 1.6))


def check_laplacian(m):
    rng = np.random.default_rng(2)
    for trial in range(20):
        n = int(rng.integers(3, 40))
        x = m.sample_positions(n, rng)
        directed = m.sample_directed_adjacency(x, rng, 2.0, 1.0)
        lap = m.normalised_laplacian(directed)
        assert np.array_equal(lap, lap.T)
        lam = np.linalg.eigvalsh(lap)
        assert lam.min() > -1e-12 and lam.max() < 2 + 1e-12, lam
        a = directed + directed.T
        degree = a.sum(axis=1)
        if np.all(degree > 0):
            # D^(1/2) 1 is a null vector (one per connected component, so at least this one).
            assert np.linalg.norm(lap @ np.sqrt(degree)) < 1e-12 * np.sqrt(n)
    # A bipartite graph (a path) reaches the top of the spectrum, 2.
    path = np.diag(np.ones(4), k=1)
    assert abs(np.linalg.eigvalsh(m.normalised_laplacian(path)).max() - 2.0) < 1e-12
    # Isolated vertices: 1 and 4 have no edges.
    directed = np.zeros((5, 5))
    directed[0, 2] = directed[2, 3] = directed[0, 3] = 1.0
    lap = m.normalised_laplacian(directed)
    assert np.all(np.isfinite(lap))
    for i in (1, 4):
        e = np.zeros(5)
        e[i] = 1.0
        assert np.array_equal(lap[i], e) and np.array_equal(lap[:, i], e)
    lam = np.linalg.eigvalsh(lap)
    assert np.sum(np.abs(lam - 1.0) < 1e-12) >= 2 and lam.min() > -1e-12 and lam.max() < 2 + 1e-12
    # The heat covariance leaves an isolated vertex uncorrelated, with variance exp(-t).
    cov = m.heat_covariance(lap, 3.0)
    assert abs(cov[1, 1] - np.exp(-3.0)) < 1e-14 and np.all(np.abs(np.delete(cov[1], 1)) < 1e-14)
    assert np.allclose(cov, expm(-3.0 * lap), atol=1e-13)
    # The dense triangle {0, 2, 3}: L~ = I - A / 2.
    tri = np.array([0, 2, 3])
    assert np.allclose(lap[np.ix_(tri, tri)], np.eye(3) - 0.5 * (np.ones((3, 3)) - np.eye(3)))


def check_covariance(m):
    """Empirical covariance of many y against expm(-t L~), each entry to 5 standard errors:
    Var(y_i y_j) = C_ii C_jj + C_ij^2 for a zero-mean Gaussian."""
    rng = np.random.default_rng(3)
    n, t = 6, 1.5
    x = m.sample_positions(n, rng)
    directed = m.sample_directed_adjacency(x, rng, 2.0, 1.0)
    directed[0, :] = directed[:, 0] = 0.0  # one isolated vertex too
    lap = m.normalised_laplacian(directed)
    exact = expm(-t * lap)
    draws = 200000
    y = m.sample_outputs(lap, t, rng, size=draws)
    assert y.shape == (draws, n)
    empirical = y.T @ y / draws  # the mean is known to be 0
    se = np.sqrt((np.outer(np.diag(exact), np.diag(exact)) + exact ** 2) / draws)
    assert np.all(np.abs(empirical - exact) <= 5 * se), np.abs(empirical - exact) / se
    assert np.max(np.abs(y.mean(axis=0)) / np.sqrt(np.diag(exact) / draws)) < 5
    # A single draw has the shape of one n-vector; t = 0 gives white noise (covariance I).
    assert m.sample_outputs(lap, t, rng).shape == (n,)
    white = m.sample_outputs(lap, 0.0, rng, size=draws)
    assert np.max(np.abs(white.T @ white / draws - np.eye(n))) < 5 * np.sqrt(2.0 / draws)


def check_command_line():
    with tempfile.TemporaryDirectory() as tmp:
        png, npz = os.path.join(tmp, "prior.png"), os.path.join(tmp, "prior.npz")
        result = subprocess.run([sys.executable, SCRIPT, "--n", "50", "--samples", "3", "--seed", "4",
                                 "--out", png, "--npz", npz], capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        arrays = np.load(npz)
        assert arrays["x"].shape == (3, 50) and arrays["y"].shape == (3, 50)
        assert arrays["directed_adjacency"].shape == (3, 50, 50)
        assert np.all(np.abs(arrays["x"]) < 3.0)
        assert float(arrays["t"]) == 12.5 and float(arrays["a"]) == 2.0 and float(arrays["b"]) == 1.0
        bad = subprocess.run([sys.executable, SCRIPT, "--n", "1", "--out", ""], capture_output=True, text=True,
                             timeout=60)
        assert bad.returncode != 0


def main():
    m = load_script()
    check_edges(m)
    check_laplacian(m)
    check_covariance(m)
    check_command_line()
    print("ok")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""gplvm encode on ProbDR runs: each method's out-of-sample extension against an independent reference.

Runs are fitted with `gplvm embed` on 300 swiss-roll rows (3 ranks, an uneven split) and 70 new rows are
encoded at 1 and 3 ranks (equal to 1e-10 relative). References, computed here from the run's latents,
noise and eigenvalues and the data:
  - pca, cmds, kpca: scikit-learn's PCA / KernelPCA transform of the new rows, mapped through the linear map
    that takes the run's training latents to scikit-learn's training embedding (exact for the same subspace);
  - isomap: scikit-learn's Isomap transform (geodesics through the new row's k nearest training rows, then
    kernel PCA's centred transform), mapped as above;
  - kpca with landmarks (Nystrom), isomap (exact and landmark): the training rows encoded as new rows land on
    their fitted latents (their cross moments are their rows of S_hat, so the extension returns
    S_hat X (X^T X + s2 I)^{-1} = X);
  - lle: scikit-learn's barycenter_weights of each new row from its k nearest training rows, applied to the
    run's latents (scikit-learn's LocallyLinearEmbedding.transform on the run's embedding);
  - le and dmaps: the Nystrom formula per eigenvector from the eigen view: u_j = x_j / |x_j| and the
    eigenvalue from /probdr/eigenvalues, u*_j = sum_i c(y*, y_i) u_ij / (eigenvalue term), x*_j = u*_j |x_j|;
  - a new file of another width: exit 2, nothing written.

Usage: test_probdr_encode.py GPLVM_EXECUTABLE MPIEXEC [MPI flags...]; plain asserts, exit non-zero on failure.
"""

import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np
from sklearn.decomposition import PCA, KernelPCA
from sklearn.manifold import Isomap
from sklearn.manifold._locally_linear import barycenter_weights

GPLVM = sys.argv[1]
MPIEXEC = sys.argv[2:]
K = 10


def gplvm(tmp, *args, ranks=1):
    command = [*MPIEXEC, "-n", str(ranks), GPLVM, *args] if ranks > 1 else [GPLVM, *args]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    return subprocess.run(command, cwd=tmp, capture_output=True, text=True, timeout=300, env=env)


def swiss_roll(n, seed):
    rng = np.random.default_rng(seed)
    t = 1.5 * np.pi * (1 + 2 * rng.random(n))
    return np.c_[t * np.cos(t), 21 * rng.random(n), t * np.sin(t)] + 0.05 * rng.standard_normal((n, 3))


def read(path, name):
    with h5py.File(path, "r") as f:
        return f[name][()]


def knn(train, new, k):
    d2 = ((new[:, None, :] - train[None, :, :]) ** 2).sum(-1)
    order = np.lexsort((np.broadcast_to(np.arange(len(train)), d2.shape), d2), axis=1)[:, :k]
    return order, np.sqrt(np.take_along_axis(d2, order, axis=1))


def training_knn_graph(train, k):
    d2 = ((train[:, None, :] - train[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    nn = np.argsort(d2, axis=1, kind="stable")[:, :k]
    return nn, np.sqrt(np.take_along_axis(d2, nn, axis=1))


def linear_map_reference(x_train, reference_train, reference_new, x_new):
    a, *_ = np.linalg.lstsq(x_train, reference_train, rcond=None)
    assert np.abs(x_train @ a - reference_train).max() < 1e-8 * np.abs(reference_train).max()
    return np.abs(x_new @ a - reference_new).max() / np.abs(reference_new).max()


def laplacian_reference(train, new, x, eigenvalues, gamma):
    nn, _ = training_knn_graph(train, K)
    n = len(train)
    w = np.zeros((n, n))
    w[np.repeat(np.arange(n), K), nn.ravel()] = 1.0
    degrees = np.maximum(w, w.T).sum(1)
    near, _ = knn(train, new, K)
    norms = np.linalg.norm(x, axis=0)
    u = x / norms
    mu = eigenvalues - gamma  # the Laplacian's, from Gamma_hat + gamma I's
    c = np.zeros((len(new), n))
    for i, row in enumerate(near):
        c[i, row] = 1.0 / np.sqrt(K * degrees[row])
    return (c @ u) / (1.0 - mu) * norms


def diffusion_reference(train, new, x, eigenvalues, alpha=1.0, t=1.0):
    nn, dist = training_knn_graph(train, K)
    n = len(train)
    eps = np.median(dist**2)
    a = np.zeros((n, n))
    a[np.repeat(np.arange(n), K), nn.ravel()] = np.exp(-(dist.ravel() ** 2) / eps)
    kernel = np.maximum(a, a.T) + np.eye(n)
    q = kernel.sum(1)
    d = (kernel * np.outer(q**-alpha, q**-alpha)).sum(1)
    near, ndist = knn(train, new, K)
    out_weights = np.exp(-(ndist**2) / eps)
    q_new = 1.0 + out_weights.sum(1)
    alpha_weights = out_weights / (q_new[:, None] ** alpha * q[near] ** alpha)
    d_new = q_new ** (-2 * alpha) + alpha_weights.sum(1)
    m = np.zeros((len(new), n))
    for i, row in enumerate(near):
        m[i, row] = alpha_weights[i] / np.sqrt(d_new[i] * d[row])
    norms = np.linalg.norm(x, axis=0)
    return (m @ (x / norms)) / eigenvalues ** (1.0 / t) * norms


def self_encoding_error(tmp, run, x):
    out = "self_" + run
    r = gplvm(tmp, "encode", "--run", run, "--data", "train.h5", "--output", out, ranks=2)
    assert r.returncode == 0, r.stderr
    again = read(os.path.join(tmp, out), "/latent/mean")
    return np.abs(again - x).max() / np.abs(x).max()


def main():
    train, new = swiss_roll(300, 1), swiss_roll(70, 2)
    with tempfile.TemporaryDirectory() as tmp:
        with h5py.File(os.path.join(tmp, "train.h5"), "w") as f:
            f["/Y"] = train
        with h5py.File(os.path.join(tmp, "new.h5"), "w") as f:
            f["/Y"] = new
        with h5py.File(os.path.join(tmp, "wide.h5"), "w") as f:
            f["/Y"] = np.c_[new, new]
        gamma = 1e-3
        cases = {
            "pca": [], "cmds": [], "kpca": [], "kpca_nystrom": ["--probdr.landmarks=40"],
            "lle": [], "le": [], "dmaps": [], "isomap": [], "isomap_landmarks": ["--probdr.landmarks=40"],
        }
        for name, extra in cases.items():
            method = name.split("_")[0]
            run = f"run_{name}.h5"
            r = gplvm(tmp, "embed", "--method", method, "--data", "train.h5", "--output", run,
                      f"--graph.k={K}", *extra, ranks=3)
            assert r.returncode == 0, r.stderr
            encoded = []
            for ranks in (1, 3):
                out = f"enc_{name}_{ranks}.h5"
                r = gplvm(tmp, "encode", "--run", run, "--data", "new.h5", "--output", out, ranks=ranks)
                assert r.returncode == 0, (name, r.stderr)
                with h5py.File(os.path.join(tmp, out), "r") as f:
                    assert f["/latent"].attrs["method"] in ("extended", b"extended"), dict(f["/latent"].attrs)
                    assert len(f["/latent"].attrs["extension"]) > 0
                    encoded.append(f["/latent/mean"][()])
            ranks_error = np.abs(encoded[0] - encoded[1]).max() / np.abs(encoded[0]).max()
            assert ranks_error < 1e-10, (name, ranks_error)
            ours = encoded[0]
            x = read(os.path.join(tmp, run), "/latent/mean")
            eigenvalues = read(os.path.join(tmp, run), "/probdr/eigenvalues")
            if method == "pca":
                p = PCA(2).fit(train)
                error = linear_map_reference(x, p.transform(train), p.transform(new), ours)
            elif method == "cmds":
                p = PCA(2).fit(train)
                error = linear_map_reference(x, p.transform(train), p.transform(new), ours)
            elif name == "kpca":
                p = KernelPCA(2, kernel="rbf", gamma=1.0 / 3).fit(train)
                error = linear_map_reference(x, p.transform(train), p.transform(new), ours)
            elif name == "isomap":
                p = Isomap(n_neighbors=K, n_components=2, eigen_solver="dense").fit(train)
                error = linear_map_reference(x, p.transform(train), p.transform(new), ours)
                error = max(error, self_encoding_error(tmp, run, x))
            elif name in ("kpca_nystrom", "isomap_landmarks"):
                # The training rows' Nystrom features are the rows of the factor H Phi, so their cross moment is
                # their row of S_hat and the extension gives back S_hat X (X^T X + s2 I)^{-1} = X: encoded as
                # new rows they must land on their fitted latents.
                error = self_encoding_error(tmp, run, x)
            elif method == "lle":
                near, _ = knn(train, new, K)
                weights = barycenter_weights(new, train, near, reg=1e-3)
                reference = np.einsum("ijk,ij->ik", x[near], weights)
                error = np.abs(ours - reference).max() / np.abs(reference).max()
            elif method == "le":
                reference = laplacian_reference(train, new, x, eigenvalues, gamma)
                error = np.abs(ours - reference).max() / np.abs(reference).max()
            elif method == "dmaps":
                reference = diffusion_reference(train, new, x, eigenvalues)
                error = np.abs(ours - reference).max() / np.abs(reference).max()
            print(f"{name}: reference {error:.2e}, 1 vs 3 ranks {ranks_error:.2e}")
            assert error < 1e-8, (name, error)

        # Bad input: a new file of another width; nothing written.
        for run, data in (("run_isomap.h5", "wide.h5"), ("run_pca.h5", "wide.h5")):
            r = gplvm(tmp, "encode", "--run", run, "--data", data, "--output", "bad.h5", ranks=2)
            assert r.returncode == 2, (run, data, r.returncode, r.stderr)
            assert not os.path.exists(os.path.join(tmp, "bad.h5"))
        print("all passed")


if __name__ == "__main__":
    main()

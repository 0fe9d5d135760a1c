#!/usr/bin/python3
"""ProbDR (`gplvm embed`) against scikit-learn on the same data and the same two cores, side by side.

For each (method, data set, n) it runs, alternately and `--repeats` times:
  - `mpirun -n RANKS gplvm embed --method M` (closed-form fit), each rank one thread;
  - the scikit-learn estimator a user would pick instead (PCA, Isomap, KernelPCA, SpectralEmbedding,
    LocallyLinearEmbedding; classical MDS as a NumPy/SciPy eigendecomposition of the double-centred
    squared distances, since scikit-learn's MDS is SMACOF; diffusion maps as SciPy's eigsh on the same
    operator), with the same two cores (OpenBLAS threads);
and records wall time and peak resident memory of each (the largest process: per rank for gplvm), and
the subspace projector difference between gplvm's classical coordinates (/probdr/classical) and
scikit-learn's embedding, ||P_a - P_b||_F with P the orthogonal projector on the columns.

A case scikit-learn cannot finish (memory beyond --sklearn-memory-gb, or --sklearn-limit seconds) is recorded as failed with its
reason, so the table shows the n where it fails (larger n are then not tried). Results are JSON lines appended to --out; a case
already there is skipped, so an interrupted study resumes where it stopped.

Data sets: swiss_roll (scikit-learn's make_swiss_roll, D = 3, noise 0.05), gp_rff (`gplvm generate
--kind gp_rff`, D = 50), fmnist50 (the first n Fashion-MNIST training images, from Debian's
dataset-fashion-mnist, which `bash scripts/install-deps.sh --with-demo` installs; PCA to 50 dimensions first).

usage: /usr/bin/python3 bench/probdr_vs_sklearn.py --methods le,isomap --data swiss_roll --n 1000,10000
       [--k 10] [--ranks 2] [--repeats 3] [--out bench/results/probdr.jsonl] [--build build]
       [--no-sklearn | --no-gplvm] [--sklearn-limit 3600] [--sklearn-memory-gb 20] [--landmarks 0]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np
from bench_run import env_for, timed, use_openblas_coretype

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FMNIST = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"


def make_data(name, n, path, build):
    if os.path.exists(path):
        return
    if name == "swiss_roll":
        from sklearn.datasets import make_swiss_roll
        y, _ = make_swiss_roll(n_samples=n, noise=0.05, random_state=0)
    elif name == "fmnist50":
        import gzip
        from sklearn.decomposition import PCA
        with gzip.open(FMNIST, "rb") as f:
            raw = np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(-1, 784)
        if n > raw.shape[0]:
            sys.exit(f"Fashion-MNIST has {raw.shape[0]} training images, fewer than n = {n}")
        y = PCA(n_components=50, random_state=0).fit_transform(raw[:n].astype(np.float64) / 255.0)
    elif name == "gp_rff":
        subprocess.run([os.path.join(build, "gplvm"), "generate", "--kind", "gp_rff", "--n", str(n), "--d", "50",
                        "--output", path], check=True, cwd=ROOT, env=env_for(1), capture_output=True)
        return
    else:
        sys.exit(f"unknown data set {name}")
    with h5py.File(path + ".part", "w") as f:
        f["/Y"] = y
    os.replace(path + ".part", path)


SKLEARN = r"""
import sys, time, h5py, numpy as np
method, data, out, k, l, landmarks = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
with h5py.File(data, "r") as f:
    y = f["/Y"][...].astype(np.float64)
n, d = y.shape
t0 = time.monotonic()
if method == "pca":
    from sklearn.decomposition import PCA
    e = PCA(n_components=l).fit_transform(y)
elif method == "isomap":
    from sklearn.manifold import Isomap
    e = Isomap(n_neighbors=k, n_components=l).fit_transform(y)
elif method == "kpca":
    from sklearn.decomposition import KernelPCA
    e = KernelPCA(n_components=l, kernel="rbf", gamma=1.0 / d).fit_transform(y)
elif method == "le":
    from sklearn.manifold import SpectralEmbedding
    from sklearn.neighbors import kneighbors_graph
    a = kneighbors_graph(y, k, include_self=False)
    a = a.maximum(a.T)  # the binary union graph gplvm uses
    e = SpectralEmbedding(n_components=l, affinity="precomputed").fit_transform(a)
elif method == "lle":
    from sklearn.manifold import LocallyLinearEmbedding
    e = LocallyLinearEmbedding(n_neighbors=k, n_components=l, reg=1e-3).fit_transform(y)
elif method == "cmds":
    # ARPACK on the dense double-centred matrix: the fastest route SciPy offers for the top l
    # (a full eigh is O(n^3)).
    from scipy.sparse.linalg import eigsh
    from scipy.spatial.distance import cdist
    d2 = cdist(y, y, "sqeuclidean")
    b = -0.5 * (d2 - d2.mean(0) - d2.mean(1)[:, None] + d2.mean())
    del d2
    w, v = eigsh(b, k=l, which="LA")
    order = np.argsort(w)[::-1]
    e = v[:, order] * np.sqrt(np.maximum(w[order], 0))
elif method == "dmaps":
    # A diffusion map as pydiffmap or datafold would build it (neither is in Debian): Gaussian weights
    # on the union k-NN graph plus self-loops, bandwidth the median squared k-NN distance,
    # alpha = 1, t = 1; the symmetric conjugate eigensolved by ARPACK.
    import scipy.sparse as sp
    from scipy.sparse.linalg import eigsh
    from sklearn.neighbors import kneighbors_graph
    g = kneighbors_graph(y, k, mode="distance", include_self=False)
    eps = np.median(g.data ** 2)
    g = g.maximum(g.T).tocsr()
    g.data = np.exp(-g.data ** 2 / eps)
    kern = g + sp.identity(n, format="csr")
    q = np.asarray(kern.sum(axis=1)).ravel()
    ka = sp.diags(1 / q) @ kern @ sp.diags(1 / q)
    dd = np.asarray(ka.sum(axis=1)).ravel()
    m = sp.diags(dd ** -0.5) @ ka @ sp.diags(dd ** -0.5)
    w, v = eigsh(m, k=l + 1, which="LA")
    order = np.argsort(w)[::-1][1:]
    e = (v[:, order] * dd[:, None] ** -0.5) * w[order]
else:
    raise SystemExit("no scikit-learn counterpart for " + method)
seconds = time.monotonic() - t0
np.save(out, e)
print(seconds)
"""


def projector_difference(a, b):
    """||P_a - P_b||_F for equal column counts, as sqrt(2) ||(I - P_a) Q_b||_F: no cancellation."""
    qa, _ = np.linalg.qr(a)
    qb, _ = np.linalg.qr(b)
    return float(np.sqrt(2.0) * np.linalg.norm(qb - qa @ (qa.T @ qb)))


def run_gplvm(args, method, data, out):
    cmd = ["mpirun", "-n", str(args.ranks), "--bind-to", "core", os.path.join(args.build, "gplvm"), "embed",
           "--method", method, "--data", data, "--output", out, "--force", f"--graph.k={args.k}",
           f"--model.latent_dim={args.l}", f"--probdr.landmarks={args.landmarks}", "--json"]
    seconds, rss, stdout, error = timed(cmd, env_for(1), ROOT)
    return {"seconds": seconds, "peak_rss_mb_per_rank": rss, "error": error}


def run_sklearn(args, method, data, out):
    script = os.path.join(tempfile.gettempdir(), "probdr_sklearn_baseline.py")
    with open(script, "w") as f:
        f.write(SKLEARN)
    cmd = ["/usr/bin/python3", script, method, data, out, str(args.k), str(args.l), str(args.landmarks)]
    seconds, rss, stdout, error = timed(cmd, env_for(args.ranks), ROOT, args.sklearn_limit, args.sklearn_memory_gb)
    result = {"seconds": seconds, "peak_rss_mb": rss, "error": error}
    if error is None:
        result["fit_seconds"] = float(stdout.strip().splitlines()[-1])
    return result


def done_cases(path):
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {(r["method"], r["data"], r["n"], r["repeat"], r["tool"]) for r in map(json.loads, f)}


def failed_baselines(path):
    """(method, data, n) of every baseline that failed: larger n are not tried again."""
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {(r["method"], r["data"], r["n"]) for r in map(json.loads, f)
                if r["tool"] == "sklearn" and r.get("error")}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--methods", default="le")
    p.add_argument("--data", default="swiss_roll")
    p.add_argument("--n", default="1000")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--l", type=int, default=2)
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--landmarks", type=int, default=0)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "probdr.jsonl"))
    p.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "probdr_bench"))
    p.add_argument("--no-sklearn", action="store_true")
    p.add_argument("--no-gplvm", action="store_true", help="the baseline alone (where it fails, say)")
    p.add_argument("--sklearn-limit", type=float, default=3600)
    p.add_argument("--sklearn-memory-gb", type=float, default=20,
                   help="address-space cap of the baseline (GiB); above it the case is recorded as failed")
    args = p.parse_args()
    use_openblas_coretype(os.path.join(args.build, "gplvm"))  # before any run: the baseline's BLAS too
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    done = done_cases(args.out)
    failed = failed_baselines(args.out)
    for n in map(int, args.n.split(",")):
        data = os.path.join(args.work, f"{args.data}_{n}.h5")
        make_data(args.data, n, data, args.build)
        for method in args.methods.split(","):
            for repeat in range(args.repeats):
                tools = (([] if args.no_gplvm else [("gplvm", run_gplvm)]) +
                         ([] if args.no_sklearn else [("sklearn", run_sklearn)]))
                for tool, run in tools:
                    if (method, args.data, n, repeat, tool) in done:
                        continue
                    if tool == "sklearn" and any(f_method == method and f_data == args.data and n > f_n
                                                 for f_method, f_data, f_n in failed):
                        print(f"sklearn {method} at n = {n}: not run, it failed at a smaller n", flush=True)
                        continue
                    out = os.path.join(args.work, f"{tool}_{method}_{args.data}_{n}" +
                                       (".h5" if tool == "gplvm" else ".npy"))
                    r = run(args, method, data, out)
                    r.update(method=method, data=args.data, n=n, repeat=repeat, tool=tool, ranks=args.ranks,
                             k=args.k, l=args.l, landmarks=args.landmarks, host=os.uname().nodename,
                             date=time.strftime("%Y-%m-%d"))
                    ours_path = os.path.join(args.work, f"gplvm_{method}_{args.data}_{n}.h5")
                    if tool == "sklearn" and r.get("error") is None and os.path.exists(ours_path):
                        with h5py.File(ours_path, "r") as f:
                            ours = f["/probdr/classical"][...]
                        r["projector_difference"] = projector_difference(ours, np.load(out))
                    if tool == "sklearn" and r.get("error"):
                        failed.add((method, args.data, n))
                    with open(args.out, "a") as f:
                        f.write(json.dumps(r) + "\n")
                    print(json.dumps(r), flush=True)


if __name__ == "__main__":
    main()

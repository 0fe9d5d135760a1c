#!/usr/bin/python3
"""The point hGP-LVM of scripts/sbt_table2.py --paper-data against the hGP-LVM authors' own NumPy code
(Watanabe et al., AISTATS 2025; its hyperboloid_gplvm.py, hyperboloid.py, hyperboloid_exponential.py
and util.py, not part of this repository: give their folder with --authors-code), start by start, on
the paper's binary tree data.

Needs the runs of `scripts/sbt_table2.py --paper-data DIR --models hgplvm --out RUNS` (default stop
-100) for starts 0 .. --starts-1 of --depth. For each start s:
  - ours: the run of train.seed = s; its start, recovered by training one iteration at the rate
    1e-300 (the latents written are the start's; kept as hgplvm_init_start<s>.h5);
  - "same start": the authors' HyperboloidGPLVM(Y, 2, lengthscale=100).RiemannGD(max_iters=1500), as
    their demo.ipynb runs it, with model.X set to our start s (their constructor draws only when no X
    is given);
  - "own start": the same with their own start, np.random.seed(s) before the constructor
    (rand(N, 2) * 1e-3 minus the mean of all entries);
  - further variants (--variants; default: same_start own_start), each from our start s:
    "gplvm_stop" (their loop stopped as ours stops: after the first iterate whose log marginal
    likelihood exceeds -100, not one trial later),
    "no_jitter" (their 1e-8 added to the noise in the gradient's K removed), "kappa10" (their
    constructor's default lengthscale 10 instead of the demo's 100), "uniform_start" (their code
    from U(-1e-3, 1e-3) draws of np.random.seed(s), not from ours), "authors_stop" (ours run one
    iteration past our stop, which is where their loop stops);
each scored by `gplvm embedding-metrics` (distance correlation: Pearson correlation of the Lorentz
geodesic distances with the Hamming distances of the codes over all pairs), with the final log
marginal likelihood F (no jitter) and the iterations taken.

The authors' files are imported from --authors-code as they are; a variant edits their source text
in memory (each edit must match exactly once). Their tqdm_notebook is replaced by a plain loop and,
when paramz is missing, paramz.caching.Cache_this by the identity (paramz caches nothing for NumPy
array arguments, so results are unchanged). One thread for BLAS unless OPENBLAS_NUM_THREADS is set.

Writes <runs>/d<depth>/paper/authors_compare.json (--store; resumable: rows already there are kept)
and prints a markdown table.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import contextlib
import io
import json
import statistics
import subprocess
import sys
import time
import types

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sbt_table2 import import_paper_tree, model_keys  # noqa: E402

EDITS = {  # variant -> (old, new) edits of the authors' hyperboloid_gplvm.py
    "gplvm_stop": [("or obj < 100.:", "or min(obj, cur_obj) < 100.:")],
    "no_jitter": [("(self.sigma + 1e-8)", "(self.sigma + 0.0)")],
}
VARIANTS = ["same_start", "own_start", "gplvm_stop", "no_jitter", "kappa10", "uniform_start", "authors_stop"]


def load_authors(folder, variant=None):
    """The authors' HyperboloidGPLVM class (edited for `variant` where EDITS says so)."""
    if folder not in sys.path:
        sys.path.insert(0, folder)
    stub = types.ModuleType("tqdm")  # their tqdm_notebook: a plain loop
    stub.tqdm_notebook = stub.tqdm = lambda iterable, *a, **k: iterable
    sys.modules["tqdm"] = stub
    try:
        import paramz.caching  # noqa: F401
    except ImportError:
        paramz = types.ModuleType("paramz")
        caching = types.ModuleType("paramz.caching")
        caching.Cache_this = lambda *a, **k: (lambda f: f)
        paramz.caching = caching
        sys.modules["paramz"], sys.modules["paramz.caching"] = paramz, caching
    path = os.path.join(folder, "hyperboloid_gplvm.py")
    with open(path) as f:
        source = f.read()
    for old, new in EDITS.get(variant, []):
        if source.count(old) != 1:
            sys.exit(f"{path}: the edit for variant {variant} expects '{old}' once, found {source.count(old)}")
        source = source.replace(old, new)
    module = types.ModuleType(f"hyperboloid_gplvm_{variant or 'as_is'}")
    module.__file__ = path
    exec(compile(source, path, "exec"), module.__dict__)
    return module.HyperboloidGPLVM


def run_authors(cls, Y, start=None, seed=None, lengthscale=100.0, uniform=False):
    """Their RiemannGD(max_iters=1500) from `start` (N x 3 hyperboloid points) or from their own draw
    under np.random.seed(seed). Returns the final points, F, iterations, variance, noise, seconds."""
    np.random.seed(seed if seed is not None else 0)
    if uniform:
        X = np.zeros((Y.shape[0], 3))
        X[:, 1:] = np.random.uniform(-1e-3, 1e-3, size=(Y.shape[0], 2))
        X[:, 0] = np.sqrt(1.0 + np.sum(X[:, 1:] ** 2, axis=1))
        start = X
    model = cls(Y=Y, latent_dim=2, lengthscale=lengthscale)
    if start is not None:
        model.X = np.array(start, dtype=np.float64)
    iterations = [0]
    inference = model.inference

    def counted(K, L=None, only_likelihood=False):
        if not only_likelihood:
            iterations[0] += 1
        return inference(K, L=L, only_likelihood=only_likelihood)

    model.inference = counted
    began = time.time()
    with contextlib.redirect_stdout(io.StringIO()):
        model.RiemannGD(max_iters=1500)
    seconds = time.time() - began
    K = model.kern.K(model.X) + model.sigma * np.eye(Y.shape[0])
    F = float(inference(K, only_likelihood=True))
    return model.X, F, iterations[0], float(model.kern.variance), float(model.sigma), seconds


def write_latents(path, X):
    with h5py.File(path + ".tmp", "w") as f:
        d = f.create_dataset("/latent/mean", data=X)
        d.attrs["latent_space"] = "lorentz"
        f.attrs["latent_space"] = "lorentz"
    os.replace(path + ".tmp", path)


def distance_correlation(gplvm, latents, data):
    out = subprocess.run([gplvm, "embedding-metrics", "--latents", latents, "--data", data, "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["distance_correlation"]


def gplvm_train(args, data, output, seed, extra):
    keys = model_keys("hgplvm", "riemannian_gd_paper", args.max_iterations, None)
    command = [args.gplvm, "train", f"--data.path={data}", f"--output.path={output}", f"--train.seed={seed}",
               "--force"] + keys + extra
    with open(output + ".log", "w") as log:
        if subprocess.call(command, stdout=log, stderr=subprocess.STDOUT) != 0:
            sys.exit(f"failed: {' '.join(command)}; see {output}.log")


def gplvm_row(path):
    with h5py.File(path, "r") as f:
        curve = f["/train/curve"][()]
        return {"F": float(curve[-1, 2]), "iterations": int(curve[-1, 0]),
                "variance": float(f["/params/kernel/variance"][()]),
                "noise": float(f["/params/noise_variance"][()]), "start_F": float(curve[0, 2])}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--authors-code", required=True, metavar="DIR", help="the authors' hyperboloid_gplvm folder")
    p.add_argument("--paper-data", required=True, metavar="DIR", help="as sbt_table2.py: DIR/<d>/train/*.npy")
    p.add_argument("--runs", default="results/sbt_table2", help="sbt_table2.py's --out")
    p.add_argument("--depth", type=int, default=5)
    p.add_argument("--starts", type=int, default=10, help="starts 0 .. starts-1")
    p.add_argument("--first", type=int, default=0, help="first start")
    p.add_argument("--variants", nargs="+", default=["same_start", "own_start"], choices=VARIANTS)
    p.add_argument("--gplvm", default="build/gplvm")
    p.add_argument("--max-iterations", type=int, default=1500)
    p.add_argument("--store", default="authors_compare.json", help="results file in the depth's folder")
    args = p.parse_args()

    folder = os.path.join(args.runs, f"d{args.depth}", "paper")
    data = os.path.join(folder, "data.h5")
    if not os.path.exists(data):
        os.makedirs(folder, exist_ok=True)
        import_paper_tree(args.paper_data, args.depth, data)
    with h5py.File(data, "r") as f:
        Y = f["/Y"][()]
    store = os.path.join(folder, args.store)
    rows = json.load(open(store)) if os.path.exists(store) else {}

    def save():
        with open(store + ".tmp", "w") as f:
            json.dump(rows, f, indent=1, sort_keys=True)
        os.replace(store + ".tmp", store)

    classes = {}

    def authors(variant, s, **kw):
        key = f"{variant}/{s}"
        if key in rows:
            return rows[key]
        cls = classes.setdefault(variant, load_authors(os.path.abspath(args.authors_code),
                                                       variant if variant in EDITS else None))
        X, F, its, var, noise, sec = run_authors(cls, Y, **kw)
        latents = os.path.join(folder, f"authors_{variant}_start{s}.h5")
        write_latents(latents, X)
        rows[key] = {"dc": distance_correlation(args.gplvm, latents, data), "F": F, "iterations": its,
                     "variance": var, "noise": noise, "seconds": round(sec, 2)}
        save()
        print(f"d={args.depth} start {s} authors {variant}: {rows[key]}", flush=True)
        return rows[key]

    for s in range(args.first, args.first + args.starts):
        run_file = os.path.join(folder, f"hgplvm_stop-100_start{s}.h5")
        if not os.path.exists(run_file):
            sys.exit(f"{run_file} missing: run scripts/sbt_table2.py --paper-data {args.paper_data} "
                     f"--depths {args.depth} --models hgplvm --out {args.runs} first")
        key = f"gplvm/{s}"
        if key not in rows:
            rows[key] = dict(gplvm_row(run_file), dc=distance_correlation(args.gplvm, run_file, data))
            save()
        init = os.path.join(folder, f"hgplvm_init_start{s}.h5")
        if not os.path.exists(init):
            gplvm_train(args, data, init, s, ["--exact.max_iterations=1", "--train.learning_rate=1e-300"])
        with h5py.File(init, "r") as f:
            start = f["/latent/mean"][()]
        for v in args.variants:
            if v == "same_start":
                authors(v, s, start=start)
            elif v == "own_start":
                authors(v, s, seed=s)
            elif v in EDITS:
                authors(v, s, start=start)
            elif v == "kappa10":
                authors(v, s, start=start, lengthscale=None)
            elif v == "uniform_start":
                authors(v, s, seed=s, uniform=True)
            elif v == "authors_stop" and f"authors_stop/{s}" not in rows:
                out = os.path.join(folder, f"hgplvm_authors_stop_start{s}.h5")
                if not os.path.exists(out):
                    gplvm_train(args, data, out, s, [f"--exact.max_iterations={rows[f'gplvm/{s}']['iterations'] + 1}"])
                rows[f"authors_stop/{s}"] = dict(gplvm_row(out), dc=distance_correlation(args.gplvm, out, data))
                save()

    columns = ["gplvm"] + list(args.variants)
    starts = range(args.first, args.first + args.starts)
    print("| start | " + " | ".join(f"{c}: dc, F, it" for c in columns) + " |")
    print("|---" * (1 + len(columns)) + "|")
    for s in starts:
        cells = [f"{rows[f'{c}/{s}']['dc']:.3f}, {rows[f'{c}/{s}']['F']:.1f}, {rows[f'{c}/{s}']['iterations']}"
                 for c in columns]
        print(f"| {s} | " + " | ".join(cells) + " |")
    means = []
    for c in columns:
        v = [rows[f"{c}/{s}"]["dc"] for s in starts]
        sd = statistics.stdev(v) if len(v) > 1 else 0.0
        means.append(f"{statistics.mean(v):.3f} ± {sd:.3f} (se {sd / len(v) ** 0.5:.3f})")
    print("| mean ± std | " + " | ".join(means) + " |")


if __name__ == "__main__":
    main()

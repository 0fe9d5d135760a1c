#!/usr/bin/python3
"""Neighbour embeddings (`gplvm embed --method tsne|umap`) against scikit-learn and Rtsne on Fashion-MNIST.

Two cases, each at every size of --sizes, `--repeats` times, the tools alternating:

  tsne  All 70,000 Fashion-MNIST images (train then test), pixels / 255, PCA to 50 dimensions by
        scikit-learn's PCA fitted on all 70,000; a size n < 70,000 takes a fixed random subset of
        those rows (seed 0, in their original order). Three tools embed the same N x 50 matrix in 2-D:
          gplvm    mpirun -n RANKS gplvm embed --method tsne --graph.search=hnsw (each rank one thread;
                   every other key at its default: perplexity 30, openTSNE's schedule, FFT-interpolated
                   repulsion above 1,000 rows)
          sklearn  sklearn.manifold.TSNE(n_components=2, init="pca", learning_rate="auto", n_jobs=THREADS)
                   (Barnes-Hut, theta 0.5, perplexity 30, 1,000 iterations)
          rtsne    R's Rtsne(X, pca=FALSE, num_threads=THREADS, check_duplicates=FALSE, theta=0.5)
                   (perplexity 30, 1,000 iterations)
        Accuracy: the 10-NN classification accuracy of the 2-D embedding on the FIXED SPLIT of
        Fashion-MNIST: a KNeighborsClassifier(10) fitted on the embedded rows that come from the
        60,000 training images predicts the rows from the 10,000 test images (the embedding itself
        is fitted on both, unlabelled: the usual transductive t-SNE evaluation). The same protocol for
        every tool. Also recorded: the 10-fold cross-validated 10-NN accuracy over all rows
        (StratifiedKFold, shuffled, seed 0).

  umap  The uwot protocol: PCA to 50 fitted on the 60,000 training images only and applied to both
        sets; `gplvm embed --method umap` on the training rows, then `gplvm encode` places the
        10,000 test rows into that fixed embedding (the method's transform: the new rows optimised
        against the training embedding). Accuracy: a KNeighborsClassifier(15) fitted on the
        training embedding and its labels predicts the placed test rows (target: >= 0.77). A size n
        takes round(n * 6/7) training and the rest test rows, fixed random subsets (seed 0).
        There is no umap-learn baseline: umap-learn is not installable here (no Debian package; no
        network), and each record says so.

Each record (one JSON line appended to --out) has the wall time of the whole process and the peak
resident memory of its largest process (per rank for gplvm, from /usr/bin/time -v), the accuracies,
the tool's own final KL where it reports one, and for gplvm the optimiser's own seconds and its
approximation. A case already in --out is skipped, so an interrupted study resumes where it
stopped; a baseline that fails (over --baseline-limit seconds, or its address space over
--baseline-memory-gb) is recorded with its reason and not tried at larger n. The inputs (HDF5 /Y and
/labels, what the gplvm CLI reads) are cached under --work.

usage: /usr/bin/python3 bench/ne_vs_sklearn.py [--cases tsne,umap] [--sizes 70000] [--repeats 1]
       [--ranks 2] [--threads 2] [--build build] [--out bench/results/ne.jsonl] [--work /tmp/ne_bench]
       [--skip-baselines | --skip-gplvm] [--baselines sklearn,rtsne] [--search hnsw]
       [--gplvm-args "--probdr.iterations=500 ..."] [--baseline-limit 7200] [--baseline-memory-gb 20]

Quick check: /usr/bin/python3 bench/ne_vs_sklearn.py --sizes 2000 --out /tmp/ne_quick.jsonl
"""
import argparse
import gzip
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

from bench_run import env_for, timed, use_openblas_coretype
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FMNIST = "/usr/share/datasets/fashion-mnist"
FULL_TRAIN, FULL_TEST = 60000, 10000
NO_UMAP_BASELINE = "umap-learn is not installable here (no Debian package, no network): no baseline"


# --------------------------------------------------------------------------------------------- data

def read_idx(name, images):
    path = os.path.join(FMNIST, name)
    if not os.path.exists(path):
        sys.exit(f"{path} is missing: install Debian's dataset-fashion-mnist "
                 "(bash scripts/install-deps.sh --with-demo)")
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if images:
        return np.frombuffer(raw, dtype=np.uint8, offset=16).reshape(-1, 784)
    return np.frombuffer(raw, dtype=np.uint8, offset=8).astype(np.int64)


def fashion_mnist():
    """(train images, train labels, test images, test labels), pixels in [0, 1]."""
    return (read_idx("train-images-idx3-ubyte.gz", True).astype(np.float64) / 255.0,
            read_idx("train-labels-idx1-ubyte.gz", False),
            read_idx("t10k-images-idx3-ubyte.gz", True).astype(np.float64) / 255.0,
            read_idx("t10k-labels-idx1-ubyte.gz", False))


def cached_pca(work):
    """The two PCA projections to 50 dimensions, computed once and cached: fitted on all 70,000
    (t-SNE) and fitted on the 60,000 training images (UMAP)."""
    path = os.path.join(work, "fmnist_pca50.npz")
    if not os.path.exists(path):
        from sklearn.decomposition import PCA
        print("PCA of Fashion-MNIST to 50 dimensions (once) ...", flush=True)
        xtr, ytr, xte, yte = fashion_mnist()
        every = np.vstack([xtr, xte])
        all70 = PCA(n_components=50, random_state=0).fit_transform(every)
        pca = PCA(n_components=50, random_state=0).fit(xtr)
        np.savez(path + ".part.npz", all70=all70, labels70=np.concatenate([ytr, yte]),
                 train=pca.transform(xtr), test=pca.transform(xte), train_labels=ytr, test_labels=yte)
        os.replace(path + ".part.npz", path)
    return np.load(path)


def subset(total, n, seed=0):
    """n of range(total), a fixed random choice in ascending order (all of them when n >= total)."""
    if n >= total:
        return np.arange(total)
    return np.sort(np.random.default_rng(seed).choice(total, size=n, replace=False))


def write_h5(path, y, labels):
    import h5py
    with h5py.File(path + ".part", "w") as f:
        f["/Y"] = np.ascontiguousarray(y, dtype=np.float64)
        f["/labels"] = np.asarray(labels, dtype=np.int64)
    os.replace(path + ".part", path)


def tsne_inputs(work, n):
    """(h5 path, raw float64 path, labels, is-test mask) of the t-SNE case at size n."""
    h5 = os.path.join(work, f"tsne_{n}.h5")
    raw = os.path.join(work, f"tsne_{n}.f64")
    meta = os.path.join(work, f"tsne_{n}_meta.npz")
    if not (os.path.exists(h5) and os.path.exists(raw) and os.path.exists(meta)):
        pca = cached_pca(work)
        rows = subset(FULL_TRAIN + FULL_TEST, n)
        y, labels = pca["all70"][rows], pca["labels70"][rows]
        write_h5(h5, y, labels)
        np.ascontiguousarray(y, dtype="<f8").tofile(raw + ".part")
        os.replace(raw + ".part", raw)
        np.savez(meta, labels=labels, is_test=rows >= FULL_TRAIN)
    m = np.load(meta)
    return h5, raw, m["labels"], m["is_test"]


def umap_inputs(work, n):
    """(train h5, test h5, train labels, test labels) of the UMAP case at size n."""
    n_train = min(FULL_TRAIN, int(round(n * FULL_TRAIN / (FULL_TRAIN + FULL_TEST))))
    n_test = min(FULL_TEST, n - n_train)
    train_h5 = os.path.join(work, f"umap_{n}_train.h5")
    test_h5 = os.path.join(work, f"umap_{n}_test.h5")
    meta = os.path.join(work, f"umap_{n}_meta.npz")
    if not (os.path.exists(train_h5) and os.path.exists(test_h5) and os.path.exists(meta)):
        pca = cached_pca(work)
        tr, te = subset(FULL_TRAIN, n_train), subset(FULL_TEST, n_test, seed=1)
        write_h5(train_h5, pca["train"][tr], pca["train_labels"][tr])
        write_h5(test_h5, pca["test"][te], pca["test_labels"][te])
        np.savez(meta, train_labels=pca["train_labels"][tr], test_labels=pca["test_labels"][te])
    m = np.load(meta)
    return train_h5, test_h5, m["train_labels"], m["test_labels"]


# ---------------------------------------------------------------------------------------- running

def last_json(stdout):
    for line in reversed(stdout.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return {}


def gplvm_cmd(args, *words):
    return (["mpirun", "-n", str(args.ranks), "--bind-to", "core", os.path.join(args.build, "gplvm")] + list(words))


def run_gplvm_embed(args, method, data, out, repeat):
    cmd = gplvm_cmd(args, "embed", "--method", method, "--data", data, "--output", out, "--force", "--json",
                    f"--graph.search={args.search}", f"--train.seed={repeat}") + shlex.split(args.gplvm_args)
    seconds, rss, stdout, error = timed(cmd, env_for(1), ROOT)
    summary = last_json(stdout)
    if error is not None and summary.get("error"):  # gplvm's own message (--json), not mpirun's trailer
        error = f"{error.split(':')[0]}: {summary['error']}"
    r = {"seconds": seconds, "peak_rss_mb_per_rank": rss, "error": error, "command": " ".join(cmd)}
    for key in ("kl", "kl_estimated", "approximation", "iterations"):
        if key in summary:
            r[key] = summary[key]
    if "wall_seconds" in summary:
        r["descent_seconds"] = summary["wall_seconds"]
    return r


def read_latents(path):
    import h5py
    with h5py.File(path, "r") as f:
        return f["/latent/mean"][...]


SKLEARN_TSNE = r"""
import sys, time, numpy as np, h5py, sklearn
from sklearn.manifold import TSNE
data, out, threads, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with h5py.File(data, "r") as f:
    y = f["/Y"][...].astype(np.float64)
t0 = time.monotonic()
tsne = TSNE(n_components=2, init="pca", learning_rate="auto", n_jobs=threads, random_state=seed)
e = tsne.fit_transform(y)
seconds = time.monotonic() - t0
np.save(out, e)
print(seconds, tsne.kl_divergence_, sklearn.__version__)
"""

RTSNE = r"""
args <- commandArgs(trailingOnly = TRUE)
raw <- args[1]; out <- args[2]; n <- as.integer(args[3]); d <- as.integer(args[4])
threads <- as.integer(args[5]); seed <- as.integer(args[6])
suppressPackageStartupMessages(library(Rtsne))
con <- file(raw, "rb"); x <- matrix(readBin(con, "double", n * d, size = 8, endian = "little"), nrow = n, byrow = TRUE); close(con)
set.seed(seed)
t0 <- proc.time()[["elapsed"]]
r <- Rtsne(x, dims = 2, pca = FALSE, num_threads = threads, check_duplicates = FALSE, theta = 0.5)
seconds <- proc.time()[["elapsed"]] - t0
con <- file(out, "wb"); writeBin(as.vector(t(r$Y)), con, size = 8, endian = "little"); close(con)
cat(seconds, tail(r$itercosts, 1), as.character(packageVersion("Rtsne")), "\n")
"""


def script_file(name, text):
    path = os.path.join(tempfile.gettempdir(), name)
    with open(path, "w") as f:
        f.write(text)
    return path


def run_sklearn_tsne(args, data, out, repeat):
    cmd = ["/usr/bin/python3", script_file("ne_bench_sklearn_tsne.py", SKLEARN_TSNE), data, out,
           str(args.threads), str(repeat)]
    seconds, rss, stdout, error = timed(cmd, env_for(args.threads), ROOT, args.baseline_limit, args.baseline_memory_gb)
    r = {"seconds": seconds, "peak_rss_mb": rss, "error": error}
    if error is None:
        fit, kl, version = stdout.strip().splitlines()[-1].split()
        r.update(fit_seconds=float(fit), kl=float(kl), version=f"scikit-learn {version}")
    return r


def run_rtsne(args, raw, n, out, repeat):
    cmd = ["Rscript", "--vanilla", script_file("ne_bench_rtsne.R", RTSNE), raw, out, str(n), "50",
           str(args.threads), str(repeat)]
    seconds, rss, stdout, error = timed(cmd, env_for(args.threads), ROOT, args.baseline_limit, args.baseline_memory_gb)
    r = {"seconds": seconds, "peak_rss_mb": rss, "error": error}
    if error is None:
        fit, kl, version = stdout.strip().splitlines()[-1].split()
        r.update(fit_seconds=float(fit), kl=float(kl), version=f"Rtsne {version}")
    return r


# ------------------------------------------------------------------------------------- accuracies

def split_accuracy(embedding, labels, is_test, k):
    from sklearn.neighbors import KNeighborsClassifier
    train = ~is_test
    if train.sum() < k or is_test.sum() == 0:
        return None
    clf = KNeighborsClassifier(n_neighbors=k).fit(embedding[train], labels[train])
    return float(clf.score(embedding[is_test], labels[is_test]))


def cv_accuracy(embedding, labels, k, folds=10):
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.neighbors import KNeighborsClassifier
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=0)
    return float(np.mean(cross_val_score(KNeighborsClassifier(n_neighbors=k), embedding, labels, cv=cv)))


def tsne_scores(embedding, labels, is_test):
    if embedding.shape != (len(labels), 2) or not np.all(np.isfinite(embedding)):
        return {"error": f"embedding of shape {embedding.shape}, finite: {bool(np.all(np.isfinite(embedding)))}"}
    return {"knn10_split_accuracy": split_accuracy(embedding, labels, is_test, 10),
            "knn10_cv10_accuracy": cv_accuracy(embedding, labels, 10)}


# ------------------------------------------------------------------------------------------ cases

def tsne_case(args, n, repeat, tool):
    h5, raw, labels, is_test = tsne_inputs(args.work, n)
    base = os.path.join(args.work, f"tsne_{n}_{tool}_{repeat}")
    if tool == "gplvm":
        out = base + ".h5"
        r = run_gplvm_embed(args, "tsne", h5, out, repeat)
        embedding = read_latents(out) if r["error"] is None else None
    elif tool == "sklearn":
        out = base + ".npy"
        r = run_sklearn_tsne(args, h5, out, repeat)
        embedding = np.load(out) if r["error"] is None else None
    else:
        out = base + ".f64"
        r = run_rtsne(args, raw, n, out, repeat)
        embedding = np.fromfile(out, dtype="<f8").reshape(-1, 2) if r["error"] is None else None
    if embedding is not None:
        scores = tsne_scores(embedding, labels, is_test)
        if "error" in scores:
            r["error"] = scores.pop("error")
        r.update(scores)
    r.update(n_train_rows=int((~is_test).sum()), n_test_rows=int(is_test.sum()),
             accuracy_protocol="10-NN fitted on the embedded training-image rows, scored on the test-image rows "
                               "(fixed Fashion-MNIST split; embedding fitted on all rows); also 10-fold CV")
    return r


def umap_case(args, n, repeat, tool):
    train_h5, test_h5, train_labels, test_labels = umap_inputs(args.work, n)
    run = os.path.join(args.work, f"umap_{n}_gplvm_{repeat}.h5")
    placed = os.path.join(args.work, f"umap_{n}_gplvm_{repeat}_test.h5")
    r = run_gplvm_embed(args, "umap", train_h5, run, repeat)
    r.update(n_train_rows=len(train_labels), n_test_rows=len(test_labels), baseline=NO_UMAP_BASELINE,
             accuracy_protocol="15-NN fitted on the training embedding and labels, scored on the test rows "
                               "placed by gplvm encode (uwot's protocol)")
    if r["error"] is not None:
        return r
    cmd = gplvm_cmd(args, "encode", "--run", run, "--data", test_h5, "--output", placed, "--json")
    seconds, rss, stdout, error = timed(cmd, env_for(1), ROOT)
    if error is not None and last_json(stdout).get("error"):
        error = f"{error.split(':')[0]}: {last_json(stdout)['error']}"
    r.update(encode_seconds=seconds, encode_peak_rss_mb_per_rank=rss, encode_error=error)
    if error is not None:
        r["error"] = f"encode: {error}"
        return r
    train, test = read_latents(run), read_latents(placed)
    if not (np.all(np.isfinite(train)) and np.all(np.isfinite(test))):
        r["error"] = "non-finite latents"
        return r
    from sklearn.neighbors import KNeighborsClassifier
    clf = KNeighborsClassifier(n_neighbors=15).fit(train, train_labels)
    r["knn15_test_accuracy"] = float(clf.score(test, test_labels))
    r["knn15_meets_target_0.77"] = r["knn15_test_accuracy"] >= 0.77
    r["knn15_train_cv10_accuracy"] = cv_accuracy(train, train_labels, 15)
    return r


def records(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def summarise(rows, cases, sizes):
    print("\ncase  n       tool     runs  seconds (median)  peak RSS MB  accuracy (median)")
    for case in cases:
        for n in sizes:
            for tool in ("gplvm", "sklearn", "rtsne"):
                mine = [r for r in rows if r["case"] == case and r["n"] == n and r["tool"] == tool]
                good = [r for r in mine if not r.get("error")]
                if not mine:
                    continue
                if not good:
                    print(f"{case:5} {n:<7} {tool:8} {len(mine):4}  failed: {mine[-1]['error']}")
                    continue
                key = "knn10_split_accuracy" if case == "tsne" else "knn15_test_accuracy"
                rss = [r.get("peak_rss_mb") or r.get("peak_rss_mb_per_rank") for r in good]
                accuracy = [r[key] for r in good if r.get(key) is not None]
                seconds = np.median([r["seconds"] + r.get("encode_seconds", 0.0) for r in good])
                print(f"{case:5} {n:<7} {tool:8} {len(good):4}  {seconds:16.1f}  {max(x or 0 for x in rss):11.0f}"
                      f"  {np.median(accuracy) if accuracy else float('nan'):.4f} ({key})")
        if case == "umap":
            print(f"umap: {NO_UMAP_BASELINE}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                epilog="See the module docstring (head -60 bench/ne_vs_sklearn.py) for the protocols.")
    p.add_argument("--cases", default="tsne,umap", help="tsne, umap or both (default tsne,umap)")
    p.add_argument("--sizes", default="70000",
                   help="comma-separated row counts, e.g. 5000,20000,70000 (default 70000; umap: 6/7 of them train)")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--ranks", type=int, default=2, help="MPI ranks of gplvm, one thread each (default 2)")
    p.add_argument("--threads", type=int, default=2, help="threads of each baseline (default 2)")
    p.add_argument("--search", default="hnsw", choices=["hnsw", "exact"], help="gplvm's graph.search (default hnsw)")
    p.add_argument("--gplvm-args", default="", help="extra gplvm overrides, e.g. \"--probdr.iterations=500\"")
    p.add_argument("--baselines", default="sklearn,rtsne", help="t-SNE baselines to run (default sklearn,rtsne)")
    p.add_argument("--skip-baselines", action="store_true", help="gplvm only")
    p.add_argument("--skip-gplvm", action="store_true", help="the baselines only")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "ne.jsonl"))
    p.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "ne_bench"))
    p.add_argument("--baseline-limit", type=float, default=7200, help="seconds before a baseline counts as failed")
    p.add_argument("--baseline-memory-gb", type=float, default=20,
                   help="address-space cap of a baseline (GiB); above it the case is recorded as failed")
    args = p.parse_args()
    use_openblas_coretype(os.path.join(args.build, "gplvm"))  # before any run: the baselines' BLAS too
    cases = [c for c in args.cases.split(",") if c]
    for c in cases:
        if c not in ("tsne", "umap"):
            p.error(f"unknown case {c!r} (tsne, umap)")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if any(n < 100 or n > FULL_TRAIN + FULL_TEST for n in sizes):
        p.error("each size must be between 100 and 70000")
    baselines = [] if args.skip_baselines else [b for b in args.baselines.split(",") if b]
    for b in baselines:
        if b not in ("sklearn", "rtsne"):
            p.error(f"unknown baseline {b!r} (sklearn, rtsne)")
    if not args.skip_gplvm and not os.path.exists(os.path.join(args.build, "gplvm")):
        sys.exit(f"{os.path.join(args.build, 'gplvm')} not found: build first, or --skip-gplvm")
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    done = {(r["case"], r["n"], r["repeat"], r["tool"]) for r in records(args.out)}
    failed = {(r["case"], r["tool"], r["n"]) for r in records(args.out) if r.get("error") and r["tool"] != "gplvm"}
    for n in sizes:
        for case in cases:
            tools = ([] if args.skip_gplvm else ["gplvm"]) + (baselines if case == "tsne" else [])
            for repeat in range(args.repeats):
                for tool in tools:
                    if (case, n, repeat, tool) in done:
                        continue
                    if tool != "gplvm" and any(c == case and t == tool and n > fn for c, t, fn in failed):
                        print(f"{tool} {case} at n = {n}: not run, it failed at a smaller n", flush=True)
                        continue
                    r = tsne_case(args, n, repeat, tool) if case == "tsne" else umap_case(args, n, repeat, tool)
                    r.update(case=case, tool=tool, n=n, repeat=repeat, threads=1 if tool == "gplvm" else args.threads,
                             ranks=args.ranks if tool == "gplvm" else 1, host=os.uname().nodename,
                             date=time.strftime("%Y-%m-%d %H:%M"))
                    if tool != "gplvm" and r.get("error"):
                        failed.add((case, tool, n))
                    with open(args.out, "a") as f:
                        f.write(json.dumps(r) + "\n")
                    print(json.dumps(r), flush=True)
    summarise(records(args.out), cases, sizes)


if __name__ == "__main__":
    main()

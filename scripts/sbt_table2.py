#!/usr/bin/env python3
"""Table 2 of the hGP-LVM paper (Watanabe et al., AISTATS 2025) on the synthetic binary tree.

For each depth d and seed s: `gplvm generate --kind binary_tree --depth d --seed s`, then two
models on those data, each measured by `gplvm embedding-metrics` (distance correlation between
latent distances and the code Hamming distances):
  - the point hGP-LVM: model.kind = "exact" on model.latent_space = "lorentz", kernel
    hyperboloid_exp with kappa fixed at 100, kernel variance and noise variance starting at 1,
    latents started by model.init = "paper_uniform", trained by --method (default: the paper's
    Riemannian gradient ascent, riemannian_gd_paper) for at most --max-iterations iterations, stopped
    as the paper's code stops it once the log marginal likelihood exceeds --stop-above (default
    -100; "none" runs every iteration);
  - the Euclidean GP-LVM: model.kind = "exact", eq_ard kernel, PCA start, L-BFGS.
Writes a markdown table of mean +- std over the seeds next to the paper's numbers.

Two protocols: by default each seed draws its own tree and its own start; with --data-seed S every
seed trains on the one tree drawn with seed S and only the start (train.seed) varies, which is what
the paper's 10 runs on its one shipped data set per depth measure. With --paper-data DIR every seed
trains on the paper's own data set of each depth instead (the hGP-LVM code's
dataset/synthetic_bin_tree folder: DIR/<d>/train/{data,true_data,label}.npy), converted to an HDF5
data file with /Y, /codes and /labels as `gplvm generate --kind binary_tree` writes them.

Resumable: every file a step writes is kept under --out, and a step whose output exists is skipped
(the run file is written only when a training run ends, so a killed run is redone from its start).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

PAPER = {
    "hgplvm": {4: "0.816 ± 0.012", 5: "0.909 ± 0.003", 6: "0.849 ± 0.004"},
    "gplvm": {4: "0.782 ± 0.000", 5: "0.746 ± 0.000", 6: "0.717 ± 0.000"},
}
NAMES = {"hgplvm": "hGP-LVM (exact, lorentz, κ = 100)", "gplvm": "GP-LVM (exact, euclidean, eq_ard, PCA)"}


def model_keys(model, method, max_iterations, stop_above):
    if model == "hgplvm":
        stop = [] if stop_above is None else [f"--optim.stop_above={stop_above}"]
        return stop + [
            "--model.kind=exact", "--model.latent_space=lorentz", "--model.kernel=hyperboloid_exp",
            "--model.lengthscale=100", '--model.fixed_hyperparameters=["kappa"]', "--model.kernel_variance=1",
            "--model.noise_variance=1", "--model.init=paper_uniform", f"--optim.method={method}",
            f"--exact.max_iterations={max_iterations}",
        ]
    return [
        "--model.kind=exact", "--model.kernel=eq_ard", "--model.lengthscale=1", "--model.kernel_variance=1",
        "--model.noise_variance=1", "--model.init=pca", f"--exact.max_iterations={max_iterations}",
    ]


def run(command, log):
    start = time.time()
    with open(log, "w") as out:
        code = subprocess.call(command, stdout=out, stderr=subprocess.STDOUT)
    if code != 0:
        sys.exit(f"failed ({code}): {' '.join(command)}; see {log}")
    return time.time() - start


def import_paper_tree(folder, depth, output):
    """The paper's data set of one depth (DIR/<depth>/train/*.npy) as a gplvm data file, checked first:
    a finite matrix with 2^d - 1 columns, binary codes of the same shape, one integer label per row."""
    import h5py  # Debian python3-h5py, python3-numpy: needed only here
    import numpy as np

    def load(name, allow_pickle=False):
        path = os.path.join(folder, str(depth), "train", name)
        try:
            return path, np.load(path, allow_pickle=allow_pickle)
        except (OSError, ValueError) as e:
            sys.exit(f"{path}: cannot read the paper's data set ({e})")

    # The code loads its label files with allow_pickle=True (some hold Python objects); the labels
    # must still be integers (the node depths).
    (y_path, y), (c_path, codes) = load("data.npy"), load("true_data.npy")
    l_path, labels = load("label.npy", allow_pickle=True)
    columns = 2**depth - 1
    if y.ndim != 2 or y.shape[1] != columns or not np.all(np.isfinite(y)):
        sys.exit(f"{y_path}: expected a finite matrix with {columns} columns (depth {depth}), got shape {y.shape}")
    if codes.shape != y.shape or not np.all((codes == 0) | (codes == 1)):
        sys.exit(f"{c_path}: expected binary codes of shape {y.shape}, got shape {codes.shape}")
    labels = labels.reshape(-1)
    if labels.shape[0] != y.shape[0]:
        sys.exit(f"{l_path}: expected {y.shape[0]} labels, got {labels.shape[0]}")
    try:
        integers = labels.astype(np.int64)
    except (TypeError, ValueError):
        sys.exit(f"{l_path}: expected integer labels (node depths), got {labels.dtype} values")
    if not np.array_equal(integers, labels):
        sys.exit(f"{l_path}: expected integer labels (node depths), got non-integer values")
    tmp = output + ".tmp"
    with h5py.File(tmp, "w") as f:
        f["/Y"] = y.astype(np.float64)
        f["/codes"] = codes.astype(np.float64)
        f["/labels"] = integers
    os.replace(tmp, output)


def one_cell(args, depth, seed, model):
    """Distance correlation of one model on one data set (each step skipped when done)."""
    tree_seed = seed if args.data_seed is None else args.data_seed
    # One folder per tree: under --data-seed or --paper-data all seeds share the tree and keep their
    # runs beside it.
    tree = "paper" if args.paper_data else f"seed{seed}" if args.data_seed is None else f"tree{args.data_seed}"
    folder = os.path.join(args.out, f"d{depth}", tree)
    os.makedirs(folder, exist_ok=True)
    data = os.path.join(folder, "data.h5")
    if args.paper_data and not os.path.exists(data):
        import_paper_tree(args.paper_data, depth, data)
    if not os.path.exists(data):
        run([args.gplvm, "generate", "--kind", "binary_tree", "--depth", str(depth), "--seed", str(tree_seed),
             "--output", data], data + ".log")
    # The stopping rule is part of a run's identity: runs under another rule keep their own files.
    tag = f"_stop{args.stop_above:g}" if model == "hgplvm" and args.stop_above is not None else ""
    start = "" if args.data_seed is None and not args.paper_data else f"_start{seed}"
    run_file = os.path.join(folder, f"{model}{tag}{start}.h5")
    launcher = [args.mpiexec, "-n", str(args.ranks), "--oversubscribe"] if args.ranks > 1 else []
    if not os.path.exists(run_file):
        seconds = run(launcher + [args.gplvm, "train", f"--data.path={data}", f"--output.path={run_file}",
                                  f"--train.seed={seed}", "--force"] +
                      model_keys(model, args.method, args.max_iterations, args.stop_above), run_file + ".log")
        print(f"d={depth} seed={seed} {model}: trained in {seconds:.0f} s", flush=True)
    metrics = os.path.join(folder, f"{model}{tag}{start}.metrics.json")
    if not os.path.exists(metrics):
        out = subprocess.run([args.gplvm, "embedding-metrics", "--latents", run_file, "--data", data, "--json"],
                             check=True, capture_output=True, text=True).stdout
        with open(metrics + ".tmp", "w") as f:
            f.write(out)
        os.replace(metrics + ".tmp", metrics)
    with open(metrics) as f:
        return json.load(f)["distance_correlation"]


def table(results, depths, seeds):
    head = "| Method | " + " | ".join(f"d={d} (ours)" + " | " + f"d={d} (paper)" for d in depths) + " |"
    lines = [head, "|" + "---|" * (1 + 2 * len(depths))]
    for model in ("hgplvm", "gplvm"):
        cells = []
        for d in depths:
            values = results.get((model, d), [])
            if values:
                std = statistics.stdev(values) if len(values) > 1 else 0.0
                cells.append(f"{statistics.mean(values):.3f} ± {std:.3f} ({len(values)} seeds)")
            else:
                cells.append("not run")
            cells.append(PAPER[model].get(d, "–"))
        lines.append(f"| {NAMES[model]} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gplvm", default="build/gplvm")
    p.add_argument("--mpiexec", default="mpirun")
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--depths", type=int, nargs="+", default=[4, 5, 6])
    p.add_argument("--seeds", type=int, default=10, help="seeds 0 .. seeds-1")
    p.add_argument("--method", default="riemannian_gd_paper", choices=["riemannian_gd_paper", "riemannian_adam"])
    p.add_argument("--max-iterations", type=int, default=1500, help="the paper's demo uses 1500")
    p.add_argument("--stop-above", type=lambda v: None if v == "none" else float(v), default=-100.0,
                   help="hGP-LVM: stop once the log marginal likelihood exceeds this, as the paper's code "
                   "does (default %(default)s; none: never)")
    p.add_argument("--data-seed", type=int, default=None,
                   help="train every seed on the one tree drawn with this seed (the paper's protocol); "
                   "default: each seed draws its own tree")
    p.add_argument("--paper-data", default=None, metavar="DIR",
                   help="train every seed on the paper's data set of each depth, DIR/<d>/train/"
                   "{data,true_data,label}.npy (the hGP-LVM code's dataset/synthetic_bin_tree)")
    p.add_argument("--models", nargs="+", default=["hgplvm", "gplvm"], choices=["hgplvm", "gplvm"])
    p.add_argument("--out", default="results/sbt_table2")
    p.add_argument("--table", default=None, help="markdown file (default: <out>/table2.md)")
    args = p.parse_args()
    if args.paper_data is not None and args.data_seed is not None:
        p.error("--paper-data and --data-seed choose the data set two ways: give one")
    results = {}
    for depth in args.depths:
        for seed in range(args.seeds):
            for model in args.models:
                results.setdefault((model, depth), []).append(one_cell(args, depth, seed, model))
    text = table(results, args.depths, range(args.seeds))
    path = args.table or os.path.join(args.out, "table2.md")
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    print(text)


if __name__ == "__main__":
    main()

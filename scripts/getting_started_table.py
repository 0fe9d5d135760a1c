#!/usr/bin/python3
"""The measured table of docs/guide/getting-started.md: every model kind with all its defaults beside
scikit-learn's PCA, Isomap and t-SNE, by the 5-NN accuracy of the 2-D latents, on three small data sets.

Data (made under --out):
  digits      scikit-learn's 1,797 handwritten digits, 8 x 8 pixels scaled to [0, 1] (scripts/digits_data.py
              and gplvm import), labels: the digit
  swiss roll  gplvm generate --kind swiss_roll --n 1500 (D = 50), labels: six bands along the roll
  tree        gplvm generate --kind binary_tree --depth 5 (620 x 31), labels: the node's depth
Methods: `gplvm train --data.path=DATA --model.kind=KIND` with nothing else set (the automatic budget chooses
batch, active set and epochs), for each kind gplvm trains (probdr: its default method, PCA), on --ranks
ranks; scikit-learn's PCA, Isomap and TSNE with their defaults (random_state 0). Every method's latents
are scored by the same command, `gplvm embedding-metrics --k 5`: the share of points whose 5 nearest
latents (leave-one-out) vote for their own label. Seconds are the wall time of the fit (gplvm: the train
command; scikit-learn: fit_transform).

    /usr/bin/python3 scripts/getting_started_table.py --out results/getting_started --ranks 1

Resumable: a method whose latents file exists under --out is not run again (its time is then read from
OUT/seconds.json). Writes OUT/table.md and prints it.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))
import gplvm_run  # noqa: E402

KINDS = ("sas", "bayesian_sas", "exact", "sparse_gplvm", "bayesian_gplvm", "vae", "probdr")
SKLEARN = ("PCA", "Isomap", "t-SNE")
DATASETS = ("digits", "swiss roll", "tree")
SWISS_ROLL_ROWS = 1500
TREE_DEPTH = 5


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gplvm", default=os.path.join(REPO, "build", "gplvm"), help="the gplvm executable")
    parser.add_argument("--out", default="results/getting_started", help="folder for data, latents and the table")
    parser.add_argument("--ranks", type=int, default=1, help="MPI ranks of gplvm train (default 1)")
    parser.add_argument("--mpirun", default="mpirun", help="the MPI launcher for --ranks > 1")
    parser.add_argument("--methods", nargs="+", choices=KINDS + SKLEARN, default=KINDS + SKLEARN,
                        help="the rows to measure (default all)")
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=DATASETS,
                        help="the columns to measure (default all)")
    return parser.parse_args(argv)


class Failed(RuntimeError):
    """A command exited non-zero; `reason` is its exit status and last line of error."""

    def __init__(self, command, result):
        lines = result.stderr.strip().splitlines()
        # gplvm's last line reads "gplvm CMD: error: MESSAGE (key ..., value ...)": the message is the cell's.
        message = lines[-1].split(": error: ", 1)[-1].split(" (key '", 1)[0] if lines else "no message"
        self.reason = f"exit {result.returncode}: {message}"
        super().__init__(f"{' '.join(command)}: {self.reason}")


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise Failed(command, result)
    return result.stdout


def make_data(args):
    """{name: data file}, each made once."""
    files = {name: os.path.join(args.out, name.replace(" ", "_") + ".h5") for name in args.datasets}
    if "digits" in files and not os.path.exists(files["digits"]):
        csv = os.path.join(args.out, "digits.csv")
        if not os.path.exists(csv):
            run([sys.executable, os.path.join(REPO, "scripts", "digits_data.py"), "--output", csv])
        run([args.gplvm, "import", "--input", csv, "--csv-label-column", "label", "--scale", "1/16",
             "--output", files["digits"]])
    if "swiss roll" in files and not os.path.exists(files["swiss roll"]):
        run([args.gplvm, "generate", "--kind", "swiss_roll", "--n", str(SWISS_ROLL_ROWS), "--output",
             files["swiss roll"]])
    if "tree" in files and not os.path.exists(files["tree"]):
        run([args.gplvm, "generate", "--kind", "binary_tree", "--depth", str(TREE_DEPTH), "--output", files["tree"]])
    return files


def train_gplvm(args, kind, data, latents):
    command = [args.gplvm, "train", f"--data.path={data}", f"--model.kind={kind}", f"--output.path={latents}"]
    if args.ranks > 1:
        command = [args.mpirun, "-n", str(args.ranks), *command]
    run(command)


def fit_sklearn(method, data, latents):
    import warnings

    from scipy.sparse import SparseEfficiencyWarning
    from sklearn.decomposition import PCA
    from sklearn.manifold import TSNE, Isomap

    # Isomap's graph completion warns once per added edge; its warning about the graph's components stays.
    warnings.simplefilter("ignore", SparseEfficiencyWarning)
    estimator = {"PCA": PCA(n_components=2), "Isomap": Isomap(n_components=2),
                 "t-SNE": TSNE(n_components=2, random_state=0)}[method]
    with gplvm_run.open_h5(data, "data") as h5:
        rows = np.asarray(gplvm_run.read_dataset(h5, "/Y"), dtype=float)
    gplvm_run.write_latents(latents, estimator.fit_transform(rows))


def knn_accuracy(args, latents, data):
    summary = json.loads(run([args.gplvm, "embedding-metrics", "--latents", latents, "--data", data, "--k", "5",
                              "--json"]))
    return float(summary["knn_accuracy"])


def measure(args, files, seconds):
    """{(method, data set): (accuracy, seconds) or the reason the fit failed}; seconds[...] keeps the times
    across resumed runs. A method that fails on a data set is reported in its cell, and the others go on."""
    results = {}
    methods = [(kind, lambda data, out, kind=kind: train_gplvm(args, kind, data, out))
               for kind in KINDS if kind in args.methods]
    methods += [(name, lambda data, out, name=name: fit_sklearn(name, data, out))
                for name in SKLEARN if name in args.methods]
    for name, fit in methods:
        for dataset, data in files.items():
            key = f"{name} / {dataset}"
            latents = os.path.join(args.out, f"{dataset.replace(' ', '_')}_{name.replace('-', '').lower()}.h5")
            try:
                if not os.path.exists(latents):
                    start = time.monotonic()
                    fit(data, latents)
                    seconds[key] = time.monotonic() - start
                    save_seconds(args, seconds)
                results[(name, dataset)] = (knn_accuracy(args, latents, data), seconds.get(key))
            except Failed as exc:
                results[(name, dataset)] = exc.reason
            print(f"{key}: {cell(results[(name, dataset)])}", flush=True)
    return results


def seconds_path(args):
    return os.path.join(args.out, "seconds.json")


def load_seconds(args):
    if not os.path.exists(seconds_path(args)):
        return {}
    with open(seconds_path(args)) as f:
        return json.load(f)


def save_seconds(args, seconds):
    with open(seconds_path(args) + ".tmp", "w") as f:
        json.dump(seconds, f, indent=1)
    os.replace(seconds_path(args) + ".tmp", seconds_path(args))


def cell(result):
    if isinstance(result, str):
        return f"fails ({result})"
    accuracy, seconds = result
    if seconds is None:
        return f"{accuracy:.3f}"
    return f"{accuracy:.3f} ({seconds:.1f} s)" if seconds < 10 else f"{accuracy:.3f} ({seconds:.0f} s)"


def table(results, args):
    shapes = "digits 1,797 × 64; swiss roll 1,500 × 50; tree 620 × 31"
    lines = [f"| 5-NN accuracy of the 2-D latents (fit time) | {' | '.join(args.datasets)} |",
             "|---|" + "---|" * len(args.datasets)]
    for name in [m for m in KINDS + SKLEARN if m in args.methods]:
        label = f"gplvm `{name}`" if name in KINDS else f"scikit-learn {name}"
        lines.append(f"| {label} | " + " | ".join(cell(results[(name, d)]) for d in args.datasets) + " |")
    version = run([args.gplvm, "--version"]).strip()
    lines += ["", f"Data: {shapes}. {version}, {args.ranks} rank(s); {machine()}; "
              f"{time.strftime('%Y-%m-%d')}."]
    return "\n".join(lines) + "\n"


def machine():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} cores"


def main(argv=None):
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    try:
        files = make_data(args)
        results = measure(args, files, load_seconds(args))
    except (Failed, gplvm_run.InputProblem) as exc:
        sys.stderr.write(f"getting_started_table.py: error: {exc}\n")
        return 1
    text = table(results, args)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

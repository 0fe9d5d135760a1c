#!/usr/bin/python3
"""SAS on the hyperboloid at scale, against Euclidean SAS at the same shapes (docs/benchmarks.md, "SAS on the
hyperboloid at 10^6 points").

    bench/lorentz_sas_scale.py --out /tmp/lorentz_scale [--depth 8 --per-node 3922] [--ranks 2] [--rounds 3]

1. `gplvm generate --kind binary_tree` (depth 8: 255 nodes, D = 255; 3,922 samples per node: N = 1,000,110),
   float32.
2. One epoch of amortised SAS, Lorentz (hyperboloid_exp kernel) and Euclidean (eq_ard), alternated --rounds times
   on --ranks ranks: the epoch's wall time and peak RSS from `gplvm train --json`; the medians and their ratio.
3. The Lorentz model trained for --epochs epochs, then a 10,000-row subsample (every k-th row) encoded and scored
   with `gplvm embedding-metrics` (distance correlation against the tree's codes, T(5), C(5)).
Prints one JSON object with everything; writes nothing outside --out.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

import h5py

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-2000:]}")
    return json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])


def mpi(ranks, gplvm):
    launch = ["mpirun", "-n", str(ranks)]
    if os.geteuid() == 0:
        launch.append("--allow-run-as-root")
    return [*launch, gplvm]


def train(args, data, output, space, epochs, extra=()):
    kernel = "hyperboloid_exp" if space == "lorentz" else "eq_ard"
    lengthscale = "2" if space == "lorentz" else "1"
    return run([*mpi(args.ranks, args.gplvm), "train", f"--data.path={data}", f"--output.path={output}",
                f"--model.latent_space={space}", f"--model.kernel={kernel}", f"--model.lengthscale={lengthscale}",
                f"--train.epochs={epochs}", "--train.tolerance=0", "--train.progress_seconds=60", "--force",
                "--json", *extra])


def subsample(data, path, count):
    with h5py.File(data, "r") as f:
        n = f["/Y"].shape[0]
        stride = max(1, n // count)
        rows = slice(0, stride * count, stride)
        with h5py.File(path, "w") as out:
            for name in ("/Y", "/codes", "/labels"):
                out[name] = f[name][rows]
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--gplvm", default=os.path.join(REPO, "build", "gplvm"))
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--per-node", type=int, default=3922)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=3, help="epochs of the model scored for distance correlation")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    data = os.path.join(args.out, f"tree_depth{args.depth}.h5")
    if not os.path.isfile(data):
        run([args.gplvm, "generate", "--kind", "binary_tree", "--depth", str(args.depth), "--per-node",
             str(args.per_node), "--float32", "--output", data, "--json"])
    with h5py.File(data, "r") as f:
        n, d = f["/Y"].shape

    timings = {"euclidean": [], "lorentz": []}
    for _ in range(args.rounds):
        for space in timings:
            summary = train(args, data, os.path.join(args.out, f"epoch_{space}.h5"), space, 1)
            timings[space].append({"seconds": summary["wall_seconds"], "steps": summary["steps"],
                                   "peak_rss_bytes_max_rank": summary["peak_rss_bytes_max_rank"]})

    model = os.path.join(args.out, "lorentz_model.h5")
    trained = train(args, data, model, "lorentz", args.epochs)
    sample = subsample(data, os.path.join(args.out, "subsample.h5"), 10000)
    encoded = os.path.join(args.out, "subsample_encoded.h5")
    run([args.gplvm, "encode", "--run", model, "--data", sample, "--output", encoded, "--json"])
    metrics = run([args.gplvm, "embedding-metrics", "--latents", encoded, "--data", sample, "--k", "5", "--json"])

    median = {space: statistics.median(t["seconds"] for t in runs) for space, runs in timings.items()}
    print(json.dumps({"n": n, "d": d, "ranks": args.ranks, "epoch_seconds_median": median,
                      "lorentz_over_euclidean": median["lorentz"] / median["euclidean"], "runs": timings,
                      "scored_model": {"epochs": args.epochs, "steps": trained["steps"],
                                       "final_objective": trained["final_objective"]},
                      "subsample_metrics": metrics}, indent=1))


if __name__ == "__main__":
    main()

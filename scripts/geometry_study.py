#!/usr/bin/python3
"""The geometry studies of docs/geometry.md on a trained decoder.

fmnist (the source thesis's Fashion-MNIST study, on the demo model, results/demo/run.h5 from
`make demo`):
  - the first --test-points (1,000) test images encoded (gplvm encode) and used as the fixed latents
    of the decoder's exact posterior (--condition-latents / --condition-data);
  - the magnification map on a grid (gplvm geometry) with the latents and geodesics drawn on it;
  - --pairs (500) geodesics between random pairs of encoded points: how many are no longer than
    their straight line under E[G], and the throughput at 1 and --ranks ranks;
  - the geodesic from the typical trousers to the typical sandal (each class's encoded point nearest
    its median latent): its decoded strip beside the straight line's (PNG);
  - the geodesic throughput against the number of conditioning points (training rows at their
    latents, --condition M).
starfish (the pinwheel of the thesis's App. E.4): N = 250 points in 3-D, an exact GPLVM per cell of
a grid of kernel variances and lengthscales (held fixed, model.fixed_hyperparameters), the
magnification map and geodesics of each.

Resumable: each step's output is kept under --out and skipped when present.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import h5py
import numpy as np


def call(args, command, log, ranks=1):
    launcher = ["mpirun", "-n", str(ranks), "--oversubscribe"]
    if os.geteuid() == 0:
        launcher.append("--allow-run-as-root")
    full = launcher + [args.gplvm] + command
    started = time.time()
    with open(log, "w") as out:
        code = subprocess.call(full, stdout=out, stderr=subprocess.STDOUT)
    if code != 0:
        sys.exit(f"failed ({code}): {' '.join(full)}; see {log}")
    with open(log) as f:
        text = f.read()
    return text, time.time() - started


def last_json(text):
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {}


def plot(args, *options):
    subprocess.check_call(["/usr/bin/python3", os.path.join(args.root, "tools", "plot_geometry.py"), *options])


def fmnist(args):
    out = os.path.join(args.out, "fmnist")
    os.makedirs(out, exist_ok=True)
    run = args.run
    test_rows = os.path.join(out, "test_rows.h5")
    if not os.path.exists(test_rows):
        with h5py.File(args.test, "r") as f, h5py.File(test_rows, "w") as g:
            g["/Y"] = f["/Y"][: args.test_points]
            g["/labels"] = f["/labels"][: args.test_points]
    latents = os.path.join(out, "test_latents.h5")
    if not os.path.exists(latents):
        call(args, ["encode", "--run", run, "--data", test_rows, "--output", latents], latents + ".log", args.ranks)
    cond = ["--condition-latents", latents, "--condition-data", test_rows]
    geometry = os.path.join(out, "geometry.h5")
    if not os.path.exists(geometry):
        call(args, ["geometry", "--run", run, *cond, "--grid", "120", "--output", geometry], geometry + ".log", args.ranks)
    results = {}
    for ranks in sorted({1, args.ranks}):
        many = os.path.join(out, f"geodesics_{args.pairs}_np{ranks}.h5")
        log = many + ".log"
        if not os.path.exists(many):
            call(args, ["geodesic", "--run", run, *cond, "--points", latents, "--random-pairs", str(args.pairs),
                        "--seed", "1", "--json", "--output", many], log, ranks)
        summary = last_json(open(log).read())
        with h5py.File(many, "r") as f:
            length, straight = f["/geodesics/length"][...].ravel(), f["/geodesics/straight_length"][...].ravel()
            converged = f["/geodesics/converged"][...].ravel()
        results[ranks] = dict(summary=summary, no_longer=int((length <= straight * (1 + 1e-12)).sum()),
                              converged=int(converged.sum()), median_ratio=float(np.median(length / straight)))
    with h5py.File(test_rows, "r") as f, h5py.File(latents, "r") as g:
        labels, z = f["/labels"][...].ravel(), g["/latent/mean"][...]

    def typical(label):  # the encoded point of the class nearest its median latent
        rows = np.flatnonzero(labels == label)
        return int(rows[np.argmin(np.linalg.norm(z[rows] - np.median(z[rows], 0), axis=1))])

    trouser, sandal = typical(1), typical(5)
    pair = os.path.join(out, "trousers_to_sandal.h5")
    if not os.path.exists(pair):
        call(args, ["geodesic", "--run", run, *cond, "--points", latents, "--from", str(trouser), "--to", str(sandal),
                    "--decode", "--shoot", "--json", "--output", pair], pair + ".log", 1)
    plot(args, "map", geometry, "--geodesics", os.path.join(out, f"geodesics_{args.pairs}_np1.h5"), "--latents", latents,
         "--max-curves", "60", "--output", os.path.join(out, "magnification_geodesics.png"))
    plot(args, "strip", pair, "--image-shape", "28,28", "--output", os.path.join(out, "trousers_to_sandal.png"))
    scaling = []
    for m in args.conditioning:
        f = os.path.join(out, f"throughput_m{m}.h5")
        log = f + ".log"
        if not os.path.exists(f):
            call(args, ["geodesic", "--run", run, "--condition", str(m), "--random-pairs", "40", "--seed", "2",
                        "--json", "--output", f], log, 1)
        s = last_json(open(log).read())
        scaling.append((m, s.get("geodesics_per_second")))
    print(json.dumps(dict(pairs=args.pairs, results=results, throughput_by_conditioning=scaling,
                          trousers=trouser, sandal=sandal), indent=1))


def pinwheel(seed=0):
    """App. E.4's starfish: 5 arms of 50 points, standardised, a third noisy coordinate, rotated."""
    rng = np.random.default_rng(seed)
    features = rng.standard_normal((250, 2)) * np.array([0.75, 0.15])
    features[:, 0] += 1.0
    labels = np.repeat(np.arange(5), 50)
    angles = labels * 2 * np.pi / 5 + 0.025 * np.exp(features[:, 0])
    rotations = np.stack([np.cos(angles), -np.sin(angles), np.sin(angles), np.cos(angles)]).T.reshape(-1, 2, 2)
    data = 10 * np.einsum("ti,tij->tj", features, rotations)
    order = rng.permutation(250)
    data, labels = data[order], labels[order]
    data = (data - data.mean(0)) / data.std(0)
    data = np.column_stack([data, 0.1 * rng.standard_normal(250)])

    def rotation(axis, degrees):
        c, s = np.cos(np.radians(degrees)), np.sin(np.radians(degrees))
        i, j = [(1, 2), (0, 2), (0, 1)][axis]
        r = np.eye(3)
        r[i, i], r[i, j], r[j, i], r[j, j] = c, -s, s, c
        return r

    for axis, degrees in ((0, 45), (1, 20), (2, 75)):
        data = data @ rotation(axis, degrees).T
    return data, labels


def starfish(args):
    out = os.path.join(args.out, "starfish")
    os.makedirs(out, exist_ok=True)
    data_file = os.path.join(out, "pinwheel.h5")
    if not os.path.exists(data_file):
        data, labels = pinwheel()
        with h5py.File(data_file, "w") as f:
            f["/Y"] = data
            f["/labels"] = labels
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    thetas, lengths = args.variances, args.lengthscales
    fig, axes = plt.subplots(len(lengths), len(thetas), figsize=(3.2 * len(thetas), 3 * len(lengths)), squeeze=False)
    for r, ell in enumerate(lengths):
        for c, theta in enumerate(thetas):
            tag = f"theta{theta}_ell{ell}"
            config, run = os.path.join(out, tag + ".toml"), os.path.join(out, tag + ".h5")
            if not os.path.exists(run):
                with open(config, "w") as f:
                    f.write(f'[data]\npath = "pinwheel.h5"\n[model]\nkind = "exact"\nlatent_dim = 2\n'
                            f"kernel_variance = {theta}\nlengthscale = {ell}\nnoise_variance = 0.0025\n"
                            f'fixed_hyperparameters = ["log_variance", "log_lengthscale_0", "log_lengthscale_1"]\n'
                            f'[exact]\nmax_iterations = 500\n[output]\npath = "{tag}.h5"\n')
                call(args, ["train", "--config", config], run + ".log", 1)
            geometry, geodesics = os.path.join(out, tag + "_geometry.h5"), os.path.join(out, tag + "_geodesics.h5")
            if not os.path.exists(geometry):
                call(args, ["geometry", "--run", run, "--condition", "0", "--grid", "80", "--output", geometry],
                     geometry + ".log", args.ranks)
            if not os.path.exists(geodesics):
                call(args, ["geodesic", "--run", run, "--condition", "0", "--random-pairs", "12", "--seed", "3",
                            "--output", geodesics], geodesics + ".log", args.ranks)
            with h5py.File(geometry, "r") as g, h5py.File(geodesics, "r") as p, h5py.File(run, "r") as t:
                points, grid = g["/geometry/points"][...], int(g["/geometry"].attrs["grid"])
                logv = g["/geometry/log_volume"][...].reshape(grid, grid)
                latents = t["/latent/mean"][...]
                ax = axes[r, c]
                ax.imshow(logv, origin="lower", cmap="viridis", aspect="auto",
                          extent=(points[0, 0], points[grid - 1, 0], points[0, 1], points[-1, 1]))
                ax.scatter(latents[:, 0], latents[:, 1], s=3, color="white")
                for curve in p["/geodesics/curve"][...]:
                    ax.plot(curve[:, 0], curve[:, 1], color="red", lw=1)
                ax.set_title(f"theta = {theta}, l = {ell}", fontsize=9)
                ax.set_xticks([])
                ax.set_yticks([])
    fig.tight_layout()
    fig.savefig(os.path.join(out, "starfish_grid.png"), dpi=110)
    print(f"wrote {os.path.join(out, 'starfish_grid.png')}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("study", choices=["fmnist", "starfish"])
    p.add_argument("--gplvm", default="build/gplvm")
    p.add_argument("--out", default="results/geometry")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--run", default="results/demo/run.h5")
    p.add_argument("--test", default="results/demo/fashion_mnist_test.h5")
    p.add_argument("--test-points", type=int, default=1000)
    p.add_argument("--pairs", type=int, default=500)
    p.add_argument("--conditioning", type=int, nargs="+", default=[250, 500, 1000, 2000])
    p.add_argument("--variances", type=float, nargs="+", default=[0.1, 1.0, 10.0])
    p.add_argument("--lengthscales", type=float, nargs="+", default=[0.3, 1.0, 3.0])
    args = p.parse_args()
    args.root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    args.gplvm = os.path.abspath(args.gplvm)
    fmnist(args) if args.study == "fmnist" else starfish(args)


if __name__ == "__main__":
    main()

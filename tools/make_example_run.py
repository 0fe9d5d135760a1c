#!/usr/bin/python3
"""Write a small fake gplvm run file (and optionally a data file with labels) for trying tools/plot_run.py.

The latents are three noisy clusters on a circle, the curve a noisy decaying objective over a few epochs:
  /usr/bin/python3 tools/make_example_run.py /tmp/example_run.h5 [--data /tmp/example_data.h5] [-n 3000]
  /usr/bin/python3 tools/plot_run.py /tmp/example_run.h5 --out-dir /tmp/example_plots
Only numpy and h5py (Debian python3-numpy, python3-h5py).
"""

import argparse
import os
import sys

import h5py
import numpy as np


def fake_run(n, q, steps, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, size=n)
    angle = 2 * np.pi * labels / 3 + 0.3 * rng.standard_normal(n)
    mean = np.zeros((n, q))
    mean[:, 0], mean[:, 1] = 2 * np.cos(angle), 2 * np.sin(angle)
    mean[:, 2:] = 0.1 * rng.standard_normal((n, q - 2))
    mean[:, :2] += 0.2 * rng.standard_normal((n, 2))
    var = np.full((n, q), 0.05)
    step = np.arange(steps, dtype=float)
    epoch = np.floor(step / max(1, steps // 8))
    objective = 1e3 * np.exp(-step / (steps / 5)) + 200 + 40 * rng.standard_normal(steps)
    wall = np.cumsum(0.01 + 0.002 * rng.random(steps))
    curve = np.column_stack([step, epoch, objective, wall])
    return mean, var, curve, labels.astype(np.int64)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="run file to write")
    parser.add_argument("--data", help="also write a data file holding /Y and /labels (labels then not in the run file)")
    parser.add_argument("-n", type=int, default=3000, help="number of latent points")
    parser.add_argument("-q", type=int, default=3, help="latent dimensions (>= 2)")
    parser.add_argument("--steps", type=int, default=2000, help="training-curve rows")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.q < 2 or args.n < 1 or args.steps < 0:
        parser.error("need -n >= 1, -q >= 2, --steps >= 0")
    mean, var, curve, labels = fake_run(args.n, args.q, args.steps, args.seed)
    os.makedirs(os.path.dirname(os.path.abspath(args.run)), exist_ok=True)
    with h5py.File(args.run, "w") as run:
        run["/latent/mean"] = mean
        run["/latent/var"] = var
        run["/train/curve"] = curve
        if not args.data:
            run["/labels"] = labels
    if args.data:
        with h5py.File(args.data, "w") as data:
            data["/Y"] = np.random.default_rng(args.seed + 1).standard_normal((args.n, 5))
            data["/labels"] = labels
    return 0


if __name__ == "__main__":
    sys.exit(main())

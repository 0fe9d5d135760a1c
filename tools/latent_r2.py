#!/usr/bin/python3
"""Affine R^2 of learned latents against a data set's true latents.

Regresses the true latents X (the data file's /latent_true, N x Q_true) on the learned latent
means Z (the run or encode file's /latent/mean, N x Q) with an affine map, X ~ [Z, 1] B, by least
squares, and reports R^2 = 1 - sum ||X - [Z, 1] B||^2 / sum ||X - mean(X)||^2 (over all entries;
1: the learned latents determine the true ones up to an affine map). Rows are matched by index, as
gplvm writes latents in data-row order.

Uses only Debian's python3-numpy and python3-h5py.
Usage: tools/latent_r2.py RUN.h5 DATA.h5 [--json]
Exit status: 0 on success, 2 for a missing or malformed input file or dataset (one-line message).
"""

import argparse
import json
import sys

import numpy as np

try:
    import h5py
except ImportError as exc:  # pragma: no cover - depends on the host
    sys.exit(f"latent_r2: needs python3-h5py ({exc})")


def read(path, dataset):
    try:
        with h5py.File(path, "r") as f:
            if dataset not in f:
                raise KeyError(dataset)
            return np.asarray(f[dataset], dtype=np.float64)
    except (OSError, KeyError) as exc:
        print(f"latent_r2: {path}: cannot read {dataset} ({exc})", file=sys.stderr)
        sys.exit(2)


def affine_r2(learned, true):
    design = np.hstack([learned, np.ones((learned.shape[0], 1))])
    coef, *_ = np.linalg.lstsq(design, true, rcond=None)
    residual = true - design @ coef
    total = true - true.mean(axis=0)
    return 1.0 - float((residual**2).sum()) / float((total**2).sum())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="run (or encode) file with /latent/mean")
    parser.add_argument("data", help="data file with /latent_true (gplvm generate writes it)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    learned = read(args.run, "/latent/mean")
    true = read(args.data, "/latent_true")
    if learned.ndim != 2 or true.ndim != 2 or learned.shape[0] != true.shape[0]:
        print(f"latent_r2: {args.run} /latent/mean {learned.shape} and {args.data} /latent_true "
              f"{true.shape} must be 2-D with the same number of rows", file=sys.stderr)
        sys.exit(2)
    r2 = affine_r2(learned, true)
    if args.json:
        print(json.dumps({"affine_r2": r2, "rows": int(true.shape[0])}))
    else:
        print(f"affine R^2 = {r2:.4f} over {true.shape[0]} rows")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""scripts/sbt_table2.py on the paper's data layout (--paper-data): a depth-4 tree written as the hGP-LVM
code's dataset/synthetic_bin_tree/4/train/{data,true_data,label}.npy, two starts of a few iterations, the
converted data file and the distance correlation against a NumPy reference, resume, and bad input.

Usage: test_sbt_table2.py GPLVM. Plain asserts; exits non-zero on failure.
"""

import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVER = os.path.join(REPO, "scripts", "sbt_table2.py")


def paper_layout(gplvm, root, depth=4, columns=None):
    """A generated tree saved as the paper's .npy files; returns (Y, codes, labels)."""
    train = os.path.join(root, str(depth), "train")
    os.makedirs(train, exist_ok=True)
    tree = os.path.join(root, "tree.h5")
    subprocess.run([gplvm, "generate", "--kind", "binary_tree", "--depth", str(depth), "--seed", "3", "--output", tree],
                   check=True, capture_output=True)
    with h5py.File(tree, "r") as f:
        y, codes, labels = f["/Y"][()], f["/codes"][()], f["/labels"][()]
    np.save(os.path.join(train, "data.npy"), y if columns is None else y[:, :columns])
    np.save(os.path.join(train, "true_data.npy"), codes.astype(np.int64))
    # As an object array, as some of the code's label files are (it loads them with allow_pickle=True).
    np.save(os.path.join(train, "label.npy"), labels.reshape(-1, 1).astype(object))
    return y, codes, labels


def driver(gplvm, out, paper, *extra):
    return subprocess.run([sys.executable, DRIVER, "--gplvm", gplvm, "--depths", "4", "--seeds", "2", "--models", "hgplvm",
                           "--max-iterations", "3", "--paper-data", paper, "--out", out, *extra],
                          capture_output=True, text=True)


def hyperbolic_distance_correlation(latents, codes):
    """Pearson correlation of Lorentz distances and code Hamming distances over the pairs i > j."""
    minkowski = latents[:, 1:] @ latents[:, 1:].T - np.outer(latents[:, 0], latents[:, 0])
    latent = np.arccosh(np.maximum(-minkowski, 1.0))
    hamming = np.abs(codes[:, None, :] - codes[None, :, :]).sum(axis=2)
    lower = np.tril_indices(len(codes), -1)
    return np.corrcoef(latent[lower], hamming[lower])[0, 1]


def main():
    gplvm = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        paper, out = os.path.join(tmp, "paper"), os.path.join(tmp, "out")
        y, codes, labels = paper_layout(gplvm, paper)
        done = driver(gplvm, out, paper)
        assert done.returncode == 0, done.stdout + done.stderr
        folder = os.path.join(out, "d4", "paper")
        with h5py.File(os.path.join(folder, "data.h5"), "r") as f:
            assert np.array_equal(f["/Y"][()], y) and np.array_equal(f["/codes"][()], codes)
            assert np.array_equal(f["/labels"][()], labels)
        runs = [os.path.join(folder, f"hgplvm_stop-100_start{s}.h5") for s in (0, 1)]
        for run in runs:
            with h5py.File(run, "r") as f:
                latents = f["/latent/mean"][()]
            with open(run.replace(".h5", ".metrics.json")) as f:
                reported = json.load(f)["distance_correlation"]
            expected = hyperbolic_distance_correlation(latents, codes)
            assert abs(reported - expected) < 1e-9, (run, reported, expected)
        with open(os.path.join(out, "table2.md")) as f:
            assert "(2 seeds)" in f.read()

        # Resume: nothing is trained again.
        stamps = [os.path.getmtime(run) for run in runs]
        again = driver(gplvm, out, paper)
        assert again.returncode == 0 and "trained" not in again.stdout, again.stdout + again.stderr
        assert stamps == [os.path.getmtime(run) for run in runs]

        # Bad input: the file is named, no data file is left behind.
        bad_paper, bad_out = os.path.join(tmp, "bad"), os.path.join(tmp, "bad_out")
        paper_layout(gplvm, bad_paper, columns=14)
        failed = driver(gplvm, bad_out, bad_paper)
        assert failed.returncode != 0 and "4/train/data.npy" in failed.stderr and "15 columns" in failed.stderr, failed.stderr
        assert not os.path.exists(os.path.join(bad_out, "d4", "paper", "data.h5"))
        both = driver(gplvm, bad_out, paper, "--data-seed", "0")
        assert both.returncode != 0 and "--paper-data" in both.stderr, both.stderr
    print("sbt_table2 --paper-data: conversion, metric, resume and bad input checked")


if __name__ == "__main__":
    main()

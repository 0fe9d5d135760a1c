#!/usr/bin/python3
"""k-NN classification accuracy of encoded test latents against training latents.

usage: /usr/bin/python3 tools/knn_accuracy.py RUN.h5 TEST_LATENTS.h5 [--k 1] [--json]

RUN.h5 is a `gplvm train` run file (/latent/mean and /labels of the training data);
TEST_LATENTS.h5 is a `gplvm encode` output (/latent/mean and /labels of the test data).
Each test point gets the majority label of its k nearest training latents (Euclidean).
"""
import argparse
import json
import sys

import h5py
import numpy as np


def load(path, what):
    try:
        with h5py.File(path, "r") as f:
            if "/latent/mean" not in f or "/labels" not in f:
                raise KeyError("needs /latent/mean and /labels")
            return np.asarray(f["/latent/mean"], dtype=np.float64), np.asarray(f["/labels"]).reshape(-1)
    except (OSError, KeyError) as e:
        print(f"knn_accuracy.py: error: {what} {path}: {e}", file=sys.stderr)
        sys.exit(2)


def knn_predict(train_x, train_y, test_x, k, chunk=2048):
    classes = np.unique(train_y)
    out = np.empty(len(test_x), dtype=train_y.dtype)
    train_sq = (train_x ** 2).sum(1)
    for start in range(0, len(test_x), chunk):
        block = test_x[start:start + chunk]
        d2 = (block ** 2).sum(1)[:, None] + train_sq[None, :] - 2.0 * block @ train_x.T
        nearest = np.argpartition(d2, k - 1, axis=1)[:, :k] if k > 1 else d2.argmin(1)[:, None]
        votes = train_y[nearest]
        counts = (votes[:, :, None] == classes[None, None, :]).sum(1)
        out[start:start + chunk] = classes[counts.argmax(1)]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("test")
    parser.add_argument("--k", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    a = parser.parse_args()
    train_x, train_y = load(a.run, "run file")
    test_x, test_y = load(a.test, "test latents")
    accuracy = float((knn_predict(train_x, train_y, test_x, a.k) == test_y).mean())
    if a.json:
        print(json.dumps({"k": a.k, "accuracy": accuracy, "train": len(train_x), "test": len(test_x)}))
    else:
        print(f"{a.k}-NN accuracy of {len(test_x)} encoded test points against {len(train_x)} training latents: "
              f"{accuracy:.4f}")


if __name__ == "__main__":
    main()

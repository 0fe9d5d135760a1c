#!/usr/bin/python3
"""The estimators give the command line's results to the bit: GPLVM(kind="sparse_gplvm").fit_transform on
scikit-learn's digits equals the latents `gplvm import` + `gplvm train` write for the same data and keys, and
its score is the objective of train's JSON summary; at two ranks under mpirun (train.reproducible) it still
equals the one-rank command line (docs/reliability.md: the same bits at any rank count).

usage: /usr/bin/python3 tests/python/test_bitwise.py GPLVM_EXECUTABLE
"""

import os

import h5py
import numpy as np
from common import GPLVM, cli, digits, run_tests

from gplvm_hpc import GPLVM as Estimator
from gplvm_hpc import SparseGPLVM

ROWS = 300
EPOCHS = 3
CONFIG = {"sas.batch_size": 100, "sparse.inducing": 20, "sparse.training": "minibatch"}


def cli_latents(tmp, *extra):
    """Latents and summary of the digits trained through the command line, the data imported from .npy."""
    raw = digits(ROWS) * 16.0  # the integer pixel values, scaled by import as a user would
    np.save(os.path.join(tmp, "digits.npy"), raw)
    cli(tmp, "import", "--input", "digits.npy", "--scale", "1/16", "--output", "digits.h5")
    summary = cli(tmp, "train", "--data.path=digits.h5", "--model.kind=sparse_gplvm", f"--train.epochs={EPOCHS}",
                  *(f"--{key}={value}" for key, value in CONFIG.items()), *extra, "--output.path=run.h5", "--json")
    with h5py.File(os.path.join(tmp, "run.h5"), "r") as run:
        return run["/latent/mean"][()], summary


def test_sparse_gplvm_fit_transform_equals_the_cli(tmp):
    expected, summary = cli_latents(tmp)
    model = Estimator(kind="sparse_gplvm", epochs=EPOCHS, config=CONFIG, executable=GPLVM)
    latents = model.fit_transform(digits(ROWS))
    assert latents.shape == (ROWS, 2), latents.shape
    assert np.array_equal(latents, expected), f"largest difference {np.abs(latents - expected).max():.3g}"
    assert model.score(digits(ROWS)) == summary["final_objective"], (model.objective_, summary["final_objective"])
    assert model.summary_["steps"] == summary["steps"]


def test_two_ranks_equal_the_one_rank_cli(tmp):
    expected, _ = cli_latents(tmp, "--train.reproducible=true")
    model = SparseGPLVM(epochs=EPOCHS, config={**CONFIG, "train.reproducible": True}, n_ranks=2, executable=GPLVM)
    latents = model.fit_transform(digits(ROWS))
    assert model.summary_["ranks"] == 2, model.summary_
    assert np.array_equal(latents, expected), f"largest difference {np.abs(latents - expected).max():.3g}"


if __name__ == "__main__":
    run_tests(test_sparse_gplvm_fit_transform_equals_the_cli, test_two_ranks_equal_the_one_rank_cli)

#!/usr/bin/python3
"""transform and inverse_transform, and an estimator carried through pickle.

An exact GPLVM with free latents is fitted to rows of a rank-2 linear map plus noise 0.05; then
  - inverse_transform(Z) equals the exact GP predictive mean computed here in NumPy from the fitted latents,
    hyperparameters and training rows (mean k_Z^T (K + s2 I)^{-1} Y);
  - held-out rows sent through transform (latents inferred under the trained decoder) and back through
    inverse_transform come back within a fifth of their spread about the mean (the noise is a tenth of it);
  - pickled, with the original estimator and its working directory gone, the copy transforms the same rows
    to the same bits (free latents are inferred against the training rows, so the copy must carry them).

usage: /usr/bin/python3 tests/python/test_round_trip.py GPLVM_EXECUTABLE
"""

import gc
import os
import pickle

import numpy as np
from common import GPLVM, low_rank_rows, run_tests

from gplvm_hpc import ExactGPLVM

TRAIN, HELD_OUT = 80, 20


def fitted(tmp):
    rows = low_rank_rows(TRAIN + HELD_OUT)
    model = ExactGPLVM(latents="free", config={"exact.max_iterations": 300}, executable=GPLVM, work_dir=tmp)
    return model.fit(rows[:TRAIN]), rows[:TRAIN], rows[TRAIN:]


def numpy_predictive_mean(model, train, at):
    variance = model.hyperparameters_["kernel/variance"]
    lengthscales = model.hyperparameters_["kernel/lengthscales"]
    noise = model.hyperparameters_["noise_variance"]

    def eq_ard(a, b):
        d = (a[:, None, :] - b[None, :, :]) / lengthscales
        return variance * np.exp(-0.5 * (d**2).sum(-1))

    x = model.embedding_
    return eq_ard(at, x) @ np.linalg.solve(eq_ard(x, x) + noise * np.eye(len(x)), train)


def test_inverse_transform_is_the_exact_gp_predictive_mean(tmp):
    model, train, _ = fitted(tmp)
    grid = np.array([[a, b] for a in np.linspace(-2, 2, 5) for b in np.linspace(-2, 2, 5)])
    decoded = model.inverse_transform(grid)
    assert decoded.shape == (25, train.shape[1])
    expected = numpy_predictive_mean(model, train, grid)
    assert np.allclose(decoded, expected, rtol=1e-7, atol=1e-7), np.abs(decoded - expected).max()


def test_held_out_rows_survive_transform_then_inverse_transform(tmp):
    model, _, held_out = fitted(tmp)
    back = model.inverse_transform(model.transform(held_out))
    spread = np.sqrt(np.mean((held_out - held_out.mean(0)) ** 2))
    error = np.sqrt(np.mean((back - held_out) ** 2))
    assert error < 0.2 * spread, f"round-trip RMSE {error:.3g} against a spread of {spread:.3g}"


def test_a_pickled_estimator_outlives_the_original(tmp):
    model, _, held_out = fitted(tmp)
    before = model.transform(held_out)
    original_directory = os.path.dirname(model.run_path_)
    copy = pickle.dumps(model)
    del model
    gc.collect()
    assert not os.path.exists(original_directory), "the working directory should go with its estimator"
    restored = pickle.loads(copy)
    assert os.path.dirname(restored.run_path_) != original_directory
    assert np.array_equal(restored.transform(held_out), before)


if __name__ == "__main__":
    run_tests(test_inverse_transform_is_the_exact_gp_predictive_mean,
              test_held_out_rows_survive_transform_then_inverse_transform,
              test_a_pickled_estimator_outlives_the_original)

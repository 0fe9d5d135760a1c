#!/usr/bin/python3
"""Load gplvm's HDF5 files into NumPy arrays: the loaders of the Python package (python/gplvm_hpc/files.py),
under the name the tools and scripts of this repository import them by.

    import gplvm_run
    run = gplvm_run.load_run("run.h5")          # run.latent_mean (N x Q), run.latent_var, run.labels,
                                                # run.curve, run.hyperparameters, run.attributes, run.config
    pred = gplvm_run.load_predictions("p.h5")   # pred.latent_mean, pred.mean (n x D), pred.variance (n,)

Problems with the input raise InputProblem (one line). The layout is documented in docs/run-file.md.
"""

import os
import sys

# The package in this source tree comes first, so the tools always read files as this checkout writes them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

from gplvm_hpc.files import (  # noqa: E402,F401  (re-exported)
    CURVE_COLUMNS,
    Encoded,
    InputProblem,
    Predictions,
    Run,
    load_encoded,
    load_predictions,
    load_run,
    open_h5,
    read_curve,
    read_dataset,
    read_hyperparameters,
    read_labels,
    read_latents,
    write_data,
    write_latents,
)

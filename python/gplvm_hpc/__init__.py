"""gplvm-hpc from Python: scikit-learn estimators that train, encode and decode through the gplvm
command line (on MPI ranks here or as Slurm jobs), and loaders of its HDF5 files into NumPy arrays.

    from gplvm_hpc import GPLVM, ProbDR
    model = GPLVM(kind="sparse_gplvm", config={"sparse.inducing": 50}, n_ranks=2)
    latents = model.fit_transform(Y)               # gplvm train
    new_latents = model.transform(Y_new)           # gplvm encode
    reconstruction = model.inverse_transform(new_latents)   # gplvm predict

    from gplvm_hpc import files                    # NumPy and h5py only
    run = files.load_run("run.h5")

The estimators are loaded on first use, so `gplvm_hpc.files` needs neither scikit-learn nor the estimators.
"""

import importlib

__version__ = "0.1.0"

# name -> the submodule that defines it, imported on first use (PEP 562).
_LAZY = {
    **{name: "models" for name in ("GPLVM", "SAS", "BayesianSAS", "ExactGPLVM", "SparseGPLVM", "BayesianGPLVM",
                                   "VAE", "ProbDR")},
    "GPLVMError": "errors",
    "GPLVMInputError": "errors",
}
__all__ = [*_LAZY, "files"]


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

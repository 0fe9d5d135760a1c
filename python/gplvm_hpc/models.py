"""The estimators: GPLVM(kind=...) for the models with a decoder, one named class per kind, and ProbDR(method=...)
for the classical and neighbour embeddings (docs/guide/models.md).

Every parameter left at None keeps gplvm's own default (`gplvm train --help`); any other configuration key
goes in `config` as {'section.key': value}.
"""

import os

import numpy as np
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted

from . import files
from .estimator import CLIEstimator

RUNNER_PARAMETERS = """
    n_ranks : int, default 1
        MPI ranks; above one the commands run under mpirun (--oversubscribe beyond this machine's cores).
    n_threads : int, default 1
        threads per rank (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS; Slurm's --cpus-per-task).
    launcher : 'local' or 'slurm', default 'local'
        'slurm' submits each command with `sbatch --wait` and follows its log; work_dir must then be on a
        file system the compute nodes share.
    slurm_options : dict, optional
        further sbatch options, e.g. {'time': '02:00:00', 'partition': 'short', 'exclusive': True}.
    executable : str, optional
        the gplvm executable; else $GPLVM_EXECUTABLE, `gplvm` on PATH, or the source tree's build/gplvm.
    work_dir : str, optional
        where the private working directory (training data, run file, logs) is made; default the system's
        temporary directory.
    verbose : int, default 0
        0 quiet; 1 gplvm's progress lines and warnings; 2 all it prints (the resolved configuration too).
    progress : callable, optional
        called with each line verbose selects, instead of print.
"""


class GPLVM(CLIEstimator):
    __doc__ = f"""A model with a decoder, trained by `gplvm train` (docs/guide/models.md).

    fit trains it; fit_transform returns the training latents; transform encodes new rows (gplvm encode);
    inverse_transform decodes latents to the predictive mean (gplvm predict); score is the training
    objective.

    Parameters
    ----------
    kind : str, optional
        model.kind: 'sas' (gplvm's default), 'bayesian_sas', 'exact', 'sparse_gplvm', 'bayesian_gplvm', 'vae'.
    latent_dim, latents, kernel, epochs, seed : optional
        model.latent_dim, model.latents ('amortised' or 'free'), model.kernel, train.epochs, train.seed.
    config : dict, optional
        any other configuration key, e.g. {{'sas.batch_size': 256, 'sparse.inducing': 50}}.
    {RUNNER_PARAMETERS}
    Attributes
    ----------
    embedding_ : ndarray (n_samples, n_latent)
        the training rows' latents (/latent/mean; n_latent = latent_dim + 1 on curved latent spaces).
    latent_variance_ : ndarray or None
        their posterior variances (Bayesian kinds and the VAE).
    objective_ : float
        the training objective at the last step; summary_ is gplvm train's whole JSON summary.
    curve_ : dict
        the training curve: 'step', 'epoch', 'objective', 'wall_time' arrays.
    hyperparameters_ : dict
        the kernel's hyperparameters and the noise variance.
    run_path_ : str
        the run file (removed with the estimator).
    """

    _default_kind = None  # gplvm's own default (sas)

    def __init__(self, kind=None, latent_dim=None, latents=None, kernel=None, epochs=None, seed=None,
                 config=None, n_ranks=1, n_threads=1, launcher="local", slurm_options=None, executable=None,
                 work_dir=None, verbose=0, progress=None):
        self.kind = kind
        self.latent_dim = latent_dim
        self.latents = latents
        self.kernel = kernel
        self.epochs = epochs
        self.seed = seed
        self.config = config
        self.n_ranks = n_ranks
        self.n_threads = n_threads
        self.launcher = launcher
        self.slurm_options = slurm_options
        self.executable = executable
        self.work_dir = work_dir
        self.verbose = verbose
        self.progress = progress

    def _kind(self):
        fixed = type(self)._default_kind
        if fixed is not None and self.kind not in (None, fixed):
            raise ValueError(f"{type(self).__name__} trains kind={fixed!r}, got kind={self.kind!r}; "
                             f"use GPLVM(kind={self.kind!r})")
        if self.kind == "probdr":
            raise ValueError("kind='probdr' has no decoder to invert: use ProbDR(method=...)")
        return self.kind or fixed

    def _named_keys(self):
        return {
            "model.kind": ("kind", self._kind()),
            "model.latent_dim": ("latent_dim", self.latent_dim),
            "model.latents": ("latents", self.latents),
            "model.kernel": ("kernel", self.kernel),
            "train.epochs": ("epochs", self.epochs),
            "train.seed": ("seed", self.seed),
        }

    def inverse_transform(self, X):
        """The decoder's predictive mean (n_samples x n_features) at the latents X (gplvm predict): the
        inducing points (sparse kinds), the exact GP given training rows (SAS, exact), or the VAE's decoder."""
        check_is_fitted(self)
        latents = check_array(X, dtype=np.float64)
        if latents.shape[1] != self.embedding_.shape[1]:
            raise ValueError(f"X has {latents.shape[1]} columns, but the model's latents have "
                             f"{self.embedding_.shape[1]}")
        with self._workspace.scratch() as scratch:
            given, out = os.path.join(scratch, "latents.h5"), os.path.join(scratch, "predictions.h5")
            files.write_latents(given, latents)
            self._run("predict", ["--run", self._workspace.run_path, "--latents", given, "--output", out], scratch)
            return files.load_predictions(out).mean


class SAS(GPLVM):
    """GPLVM(kind='sas'): stochastic active sets."""

    _default_kind = "sas"


class BayesianSAS(GPLVM):
    """GPLVM(kind='bayesian_sas'): stochastic active sets with Gaussian latents."""

    _default_kind = "bayesian_sas"


class ExactGPLVM(GPLVM):
    """GPLVM(kind='exact'): the exact GPLVM, full batch (ScaLAPACK, L-BFGS)."""

    _default_kind = "exact"


class SparseGPLVM(GPLVM):
    """GPLVM(kind='sparse_gplvm'): M inducing points (sparse.*)."""

    _default_kind = "sparse_gplvm"


class BayesianGPLVM(GPLVM):
    """GPLVM(kind='bayesian_gplvm'): the variational Bayesian GPLVM with inducing points."""

    _default_kind = "bayesian_gplvm"


class VAE(GPLVM):
    """GPLVM(kind='vae'): the variational autoencoder with an MLP decoder (vae.*)."""

    _default_kind = "vae"


class ProbDR(CLIEstimator):
    __doc__ = f"""A classical or neighbour embedding read as a probabilistic model (model.kind = 'probdr', the
    `gplvm embed` of docs/guide/models.md): it has no decoder, so no inverse_transform.

    fit embeds; fit_transform returns the embedding; transform places new rows by the method's out-of-sample
    extension (gplvm encode); score is the training objective (the negative Wishart KL, or the
    neighbour embeddings' negative KL).

    Parameters
    ----------
    method : str, optional
        probdr.method: 'pca' (gplvm's default), 'cmds', 'isomap', 'kpca', 'le', 'lle', 'dmaps', 'sne',
        'tsne', 'umap'.
    latent_dim, seed : optional
        model.latent_dim, train.seed.
    config : dict, optional
        any other configuration key, e.g. {{'graph.k': 12, 'probdr.perplexity': 10}}.
    {RUNNER_PARAMETERS}
    Attributes: as GPLVM's.
    """

    def __init__(self, method=None, latent_dim=None, seed=None, config=None, n_ranks=1, n_threads=1,
                 launcher="local", slurm_options=None, executable=None, work_dir=None, verbose=0, progress=None):
        self.method = method
        self.latent_dim = latent_dim
        self.seed = seed
        self.config = config
        self.n_ranks = n_ranks
        self.n_threads = n_threads
        self.launcher = launcher
        self.slurm_options = slurm_options
        self.executable = executable
        self.work_dir = work_dir
        self.verbose = verbose
        self.progress = progress

    def _named_keys(self):
        return {
            "model.kind": ("ProbDR", "probdr"),
            "probdr.method": ("method", self.method),
            "model.latent_dim": ("latent_dim", self.latent_dim),
            "train.seed": ("seed", self.seed),
        }

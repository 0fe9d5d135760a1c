"""What every estimator of this package does, in scikit-learn's terms, through the gplvm command line:
fit (gplvm train), transform (gplvm encode), score (the training objective) and pickling; the subclasses
(models.py) name their parameters and the configuration keys those set.
"""

import hashlib
import os
import shutil

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from . import cli, files, options
from .executable import find_executable
from .workspace import Workspace


def _digest(rows):
    """A fingerprint of a float64 matrix: its shape and bytes."""
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    return hashlib.sha256(repr(rows.shape).encode() + rows.tobytes()).hexdigest()


class CLIEstimator(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base of the estimators: a model trained by `gplvm train` in a private working directory.

    Subclasses define __init__ with their parameters, which must include these (how commands run):
    n_ranks, n_threads, launcher, slurm_options, executable, work_dir, verbose, progress, config;
    and _named_keys(), the configuration keys their other parameters set.
    """

    def _named_keys(self):
        """{configuration key: (parameter name, value)}; a value of None leaves gplvm's default."""
        raise NotImplementedError

    def _launch(self):
        return cli.make_launch(find_executable(self.executable), self.n_ranks, self.n_threads, self.launcher,
                               self.slurm_options, self.verbose, self.progress)

    def _run(self, command, arguments, scratch, launch=None):
        named = self._named_keys()
        return cli.run_command(launch or self._launch(), command, arguments, scratch,
                               lambda key: options.parameter_for_key(key, named, self.config))

    def fit(self, X, y=None):
        """Trains the model on the rows of X (n_samples x n_features); y is ignored."""
        X = self._validate_data(X, dtype=np.float64, ensure_min_samples=2)
        overrides = options.overrides(self._named_keys(), self.config)
        launch = self._launch()  # parameters are checked before anything is written
        workspace = Workspace(self.work_dir)
        try:
            files.write_data(workspace.data_path, X)
            with workspace.scratch() as scratch:
                summary = self._run("train", [f"--data.path={workspace.data_path}",
                                              f"--output.path={workspace.run_path}", *overrides], scratch, launch)
            # The final checkpoint is for --resume, which the estimators do not offer: do not keep a copy.
            shutil.rmtree(workspace.run_path + ".checkpoints", ignore_errors=True)
            run = files.load_run(workspace.run_path)
        except BaseException:
            workspace.remove()
            raise
        self._set_fitted(workspace, run, summary, X)
        return self

    def _set_fitted(self, workspace, run, summary, X):
        if getattr(self, "_workspace", None) is not None:
            self._workspace.remove()
        self._workspace = workspace
        self._training_digest = _digest(X)
        self.embedding_ = run.latent_mean
        self.latent_variance_ = run.latent_var
        self.objective_ = float(summary["final_objective"])
        self.summary_ = summary
        self.curve_ = run.curve
        self.hyperparameters_ = run.hyperparameters
        self._n_features_out = run.latent_mean.shape[1]

    @property
    def run_path_(self):
        """The fitted run file (docs/run-file.md), for the other gplvm commands; removed with the estimator,
        so copy it to keep it."""
        check_is_fitted(self)
        return self._workspace.run_path

    def fit_transform(self, X, y=None):
        """Fits and returns the training rows' latents as trained (not re-encoded)."""
        return self.fit(X, y).embedding_.copy()

    def transform(self, X):
        """Latents of new rows (gplvm encode): the encoder's output, the latents inferred under the trained
        decoder (free latents), or the method's out-of-sample extension (ProbDR)."""
        check_is_fitted(self)
        X = self._validate_data(X, reset=False, dtype=np.float64)
        with self._workspace.scratch() as scratch:
            rows, out = os.path.join(scratch, "rows.h5"), os.path.join(scratch, "latents.h5")
            files.write_data(rows, X)
            self._run("encode", ["--run", self._workspace.run_path, "--data", rows, "--output", out], scratch)
            return files.load_encoded(out).latent_mean

    def score(self, X, y=None):
        """The fitted model's objective on its training data X: the log marginal likelihood (exact), the
        variational bound (Bayesian and sparse kinds, the VAE), the SAS objective or ProbDR's negative KL,
        as at the last step of training (a minibatch estimate for minibatch training)."""
        check_is_fitted(self)
        X = self._validate_data(X, reset=False, dtype=np.float64)
        if _digest(X) != self._training_digest:
            raise ValueError("score(X) is the training objective, and X is not the data the model was fitted "
                             "on; held-out rows are scored by `gplvm evaluate --run RUN --test FILE` (run_path_)")
        return self.objective_

    def __getstate__(self):
        state = dict(super().__getstate__())
        workspace = state.pop("_workspace", None)
        if workspace is not None:
            state["_workspace_files"] = workspace.snapshot()
        return state

    def __setstate__(self, state):
        state = dict(state)
        snapshot = state.pop("_workspace_files", None)
        super().__setstate__(state)
        if snapshot is not None:
            self._workspace = Workspace.restore(snapshot, self.work_dir)

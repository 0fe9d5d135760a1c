"""An estimator's private working directory: the training data as an HDF5 file and the run file gplvm train
writes from it, in a temporary directory of their own (never next to the user's files), removed with the
estimator. Pickling carries the two files as bytes, and unpickling puts them in a new such directory.
"""

import os
import tempfile
import tomllib

import h5py
import numpy as np

DATA = "data.h5"
RUN = "run.h5"


class Workspace:
    """A temporary directory under `work_dir` (None: the system's), holding data.h5 and run.h5."""

    def __init__(self, work_dir=None):
        if work_dir is not None and not os.path.isdir(work_dir):
            raise FileNotFoundError(f"work_dir = {os.fspath(work_dir)!r} is not a directory")
        self._directory = tempfile.TemporaryDirectory(prefix="gplvm-hpc-", dir=work_dir)
        self.path = self._directory.name

    @property
    def data_path(self):
        return os.path.join(self.path, DATA)

    @property
    def run_path(self):
        return os.path.join(self.path, RUN)

    def scratch(self):
        """A directory for one command's inputs, outputs and logs, removed after it (a context manager)."""
        return tempfile.TemporaryDirectory(prefix="call-", dir=self.path)

    def remove(self):
        self._directory.cleanup()

    def snapshot(self):
        """The data and run files as bytes, for pickling."""
        out = {}
        for name in (DATA, RUN):
            with open(os.path.join(self.path, name), "rb") as f:
                out[name] = f.read()
        return out

    @classmethod
    def restore(cls, snapshot, work_dir=None):
        """A new workspace holding the files of `snapshot`, the run pointed at its new copy of the data."""
        workspace = cls(work_dir)
        for name, content in snapshot.items():
            with open(os.path.join(workspace.path, name), "wb") as f:
                f.write(content)
        relocate_training_data(workspace.run_path, workspace.data_path)
        return workspace


def _utf8(text):
    """A fixed-length UTF-8 string, the type gplvm writes its strings with."""
    raw = text.encode()
    return np.array(raw, dtype=h5py.string_dtype("utf-8", len(raw)))


def _toml_string(text):
    # A TOML basic string, as the run file's configuration writes a path without quotes or backslashes.
    return '"' + text + '"'


def relocate_training_data(run_path, data_path):
    """Points the run file at `data_path` as its training data (its /config data.path and data_file).

    gplvm encode (free latents, ProbDR) and predict (the exact GP given the training rows) read the
    training data from there; a run copied into a new workspace must not name the old one.
    """
    with h5py.File(run_path, "r+") as h5:
        text = h5["/config"][()].decode()
        old = tomllib.loads(text)["data"]["path"]
        moved = text.replace(f"path = {_toml_string(old)}", f"path = {_toml_string(data_path)}", 1)
        if tomllib.loads(moved)["data"]["path"] != data_path:
            raise RuntimeError(f"{run_path}: cannot point data.path at {data_path!r} in its /config")
        del h5["/config"]
        h5["/config"] = _utf8(moved)
        h5.attrs["data_file"] = _utf8(data_path)

"""gplvm's HDF5 files and NumPy arrays: run files and checkpoints (gplvm train) and the outputs of gplvm
encode, evaluate and predict read into arrays, and the inputs of train, encode and predict written from them.
The layout is documented in docs/run-file.md.

    from gplvm_hpc import files
    run = files.load_run("run.h5")          # run.latent_mean (N x Q), run.latent_var, run.labels,
                                            # run.curve, run.hyperparameters, run.attributes, run.config
    pred = files.load_predictions("p.h5")   # pred.latent_mean, pred.mean (n x D), pred.variance (n,)
    files.write_data("y.h5", Y)             # /Y (N x D): the data.path of gplvm train, the --data of encode

Needs only NumPy and h5py (Debian's python3-numpy and python3-h5py). Problems with the input raise
InputProblem (one line).
"""

import os
from dataclasses import dataclass, field

import numpy as np

try:
    import h5py
except ImportError as exc:  # pragma: no cover - depends on the host
    raise ImportError(f"{exc}; install the Debian package python3-h5py and run with /usr/bin/python3") from exc

CURVE_COLUMNS = ("step", "epoch", "objective", "wall_time")


class InputProblem(Exception):
    """A missing or malformed input file or dataset."""


def open_h5(path, what="input"):
    if not os.path.isfile(path):
        raise InputProblem(f"{what} file not found: {path}")
    try:
        return h5py.File(path, "r")
    except OSError as exc:
        raise InputProblem(f"cannot open {what} file {path} as HDF5: {exc}") from exc


def read_dataset(h5, path, required=True):
    """The dataset at `path` as a numpy array, or None when it is absent and not required."""
    obj = h5.get(path)
    if obj is None:
        if required:
            raise InputProblem(f"{h5.filename}: dataset '{path}' not found")
        return None
    if not isinstance(obj, h5py.Dataset):
        raise InputProblem(f"{h5.filename}: '{path}' is a group, not a dataset")
    return obj[()]


def read_latents(h5):
    """(mean N x Q, variance N x Q or None) from /latent/mean and /latent/var."""
    mean = np.asarray(read_dataset(h5, "/latent/mean"), dtype=float)
    if mean.ndim == 1:
        mean = mean[:, None]
    if mean.ndim != 2 or mean.shape[0] == 0 or mean.shape[1] == 0:
        raise InputProblem(f"{h5.filename}: '/latent/mean' must be a non-empty N x Q matrix, got shape {mean.shape}")
    var = read_dataset(h5, "/latent/var", required=False)
    if var is not None:
        var = np.asarray(var, dtype=float).reshape(mean.shape[0], -1)
    return mean, var


def read_curve(h5):
    """Columns step, epoch, objective, wall_time of /train/curve as a dict of 1-D arrays (possibly empty)."""
    raw = read_dataset(h5, "/train/curve")
    if raw.dtype.names:  # a compound dataset: take the columns by name
        missing = [c for c in CURVE_COLUMNS if c not in raw.dtype.names]
        if missing:
            raise InputProblem(f"{h5.filename}: '/train/curve' has no field(s) {', '.join(missing)}")
        return {c: np.asarray(raw[c], dtype=float).ravel() for c in CURVE_COLUMNS}
    curve = np.asarray(raw, dtype=float)
    if curve.size == 0:
        curve = curve.reshape(0, len(CURVE_COLUMNS))
    if curve.ndim != 2 or curve.shape[1] < len(CURVE_COLUMNS):
        raise InputProblem(
            f"{h5.filename}: '/train/curve' must be M x 4 (step, epoch, objective, wall time), got shape {curve.shape}"
        )
    return {c: curve[:, i] for i, c in enumerate(CURVE_COLUMNS)}


def read_labels(h5, path="/labels", required=False, rows=None):
    """Integer labels as a 1-D array (None when absent and not required), checked against `rows`."""
    labels = read_dataset(h5, path, required=required)
    if labels is None:
        return None
    labels = np.asarray(labels).ravel()
    if rows is not None and labels.shape[0] != rows:
        raise InputProblem(f"{h5.filename}: labels '{path}' have {labels.shape[0]} entries but there are {rows} rows")
    return labels


def _attribute(value):
    return value.decode() if isinstance(value, bytes) else value.item() if isinstance(value, np.generic) else value


def read_hyperparameters(h5):
    """{'kernel/<name>': value or array, ..., 'noise_variance': value} from /params."""
    out = {}
    kernel = h5.get("/params/kernel")
    if isinstance(kernel, h5py.Group):
        for name, obj in kernel.items():
            value = np.asarray(obj[()], dtype=float)
            out[f"kernel/{name}"] = float(value) if value.ndim == 0 else value
    noise = h5.get("/params/noise_variance")
    if noise is not None:
        out["noise_variance"] = float(np.asarray(noise[()], dtype=float).ravel()[0])
    return out


@dataclass
class Run:
    """A run file or checkpoint of gplvm train."""

    path: str
    latent_mean: np.ndarray
    latent_var: np.ndarray = None
    labels: np.ndarray = None
    curve: dict = None
    hyperparameters: dict = field(default_factory=dict)
    attributes: dict = field(default_factory=dict)
    config: str = ""

    def lengthscales(self):
        """The kernel's per-dimension lengthscales (Q values), or None when the kernel has none."""
        value = self.hyperparameters.get("kernel/lengthscales")
        if value is None:
            return None
        return np.broadcast_to(np.asarray(value, dtype=float), (self.latent_mean.shape[1],)).copy()


def load_run(path):
    with open_h5(path, "run") as h5:
        mean, var = read_latents(h5)
        curve = read_curve(h5) if "/train/curve" in h5 else None
        config = read_dataset(h5, "/config", required=False)
        return Run(
            path=path,
            latent_mean=mean,
            latent_var=var,
            labels=read_labels(h5, rows=mean.shape[0]),
            curve=curve,
            hyperparameters=read_hyperparameters(h5),
            attributes={k: _attribute(v) for k, v in h5.attrs.items()},
            config=config.decode() if isinstance(config, bytes) else (config or ""),
        )


@dataclass
class Predictions:
    """The output of gplvm predict (or gplvm evaluate's --output)."""

    path: str
    latent_mean: np.ndarray
    mean: np.ndarray
    variance: np.ndarray


def load_predictions(path):
    with open_h5(path, "predictions") as h5:
        latent = np.asarray(read_dataset(h5, "/latent/mean"), dtype=float)
        mean = np.asarray(read_dataset(h5, "/predictive/mean"), dtype=float)
        variance = np.asarray(read_dataset(h5, "/predictive/variance"), dtype=float).ravel()
    if mean.ndim != 2 or variance.shape[0] != mean.shape[0]:
        raise InputProblem(f"{path}: /predictive/mean is {mean.shape} but /predictive/variance has {variance.shape[0]} rows")
    return Predictions(path, latent, mean, variance)


@dataclass
class Encoded:
    """The output of gplvm encode."""

    path: str
    latent_mean: np.ndarray
    latent_var: np.ndarray = None
    labels: np.ndarray = None


def load_encoded(path):
    with open_h5(path, "encoded") as h5:
        mean, var = read_latents(h5)
        return Encoded(path, mean, var, read_labels(h5, rows=mean.shape[0]))


def write_latents(path, latents):
    """An HDF5 file with /latent/mean (n x Q): the --latents input of gplvm predict."""
    with h5py.File(path, "w") as h5:
        h5["/latent/mean"] = np.asarray(latents, dtype=float)


def write_data(path, rows):
    """An HDF5 data file with /Y (n x D, float64), as gplvm import writes: what gplvm train and encode read."""
    with h5py.File(path, "w") as h5:
        h5["/Y"] = np.asarray(rows, dtype=np.float64)

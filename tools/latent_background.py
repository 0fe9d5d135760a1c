"""The field drawn under a latent scatter: where the decoder is sure of itself and where it is not.

Two fields, on the view of tools/latent_view.py:
  - the predictive variance of the run's GP decoder on a grid over the view (`gplvm predict`; noise
    included, so its floor is the noise variance), high away from the data;
  - log sqrt det E[G], the log magnification of the decoder's expected metric, from a `gplvm geometry`
    output (its own grid or points), high where a latent step moves the decoded data most.
Either is returned as a Background, drawn in grey under the coloured points.
"""

from dataclasses import dataclass

import numpy as np

import gplvm_predict
import gplvm_run
import latent_view

GRID = 60  # points per side of the variance grid


@dataclass
class Background:
    values: np.ndarray  # grid values (rows from the top), or values at `points`
    label: str
    extent: tuple = None  # xmin, xmax, ymin, ymax of a grid
    points: np.ndarray = None  # P x 2 plotted coordinates of scattered values
    log_scale: bool = False  # a variance spans orders of magnitude, from the noise to the prior
    disk: bool = False  # drawn inside the unit circle only (the Poincare disk)


def predictive_variance(run_path, view, gplvm=None, ranks=1, condition=None):
    """The run's predictive variance on a GRID x GRID grid over the view, conditioned on `condition` training rows (None: gplvm predict's default)."""
    latents, inside = latent_view.grid(view, GRID)
    predictions = gplvm_predict.predict(run_path, latents, gplvm=gplvm, ranks=ranks, condition=condition)
    # Outside the disk (hyperbolic infinity) the variance is the prior's: the largest, which keeps the
    # interpolated image smooth up to the unit circle it is clipped to.
    values = np.full(GRID * GRID, float(np.max(predictions.variance)))
    values[inside] = predictions.variance
    return Background(values.reshape(GRID, GRID), f"predictive variance ({conditioning(run_path, condition)})",
                      extent=view.box, log_scale=True, disk=view.lorentz)


def conditioning(run_path, condition):
    """What the variance is conditioned on, in words: sparse runs their inducing points, others training rows."""
    with gplvm_run.open_h5(run_path, "run") as h5:
        rows = int(h5.attrs.get("num_data", 0))
        sparse = "/params/inducing" in h5
    if sparse:
        return "given the inducing points"
    if condition and rows:
        return f"given {min(condition, rows)} of the {rows} training rows"
    return "given the training rows"


def log_magnification(geometry_path, view):
    """log sqrt det E[G] from a gplvm geometry output, on its grid or at its points, in the view's coordinates."""
    with gplvm_run.open_h5(geometry_path, "geometry") as h5:
        points = np.asarray(gplvm_run.read_dataset(h5, "/geometry/points"), dtype=float)
        values = np.asarray(gplvm_run.read_dataset(h5, "/geometry/log_volume"), dtype=float).ravel()
        side = int(h5["/geometry"].attrs.get("grid", 0))
    if view.lorentz:
        points = latent_view.poincare_from_lorentz(points)
    if points.ndim != 2 or points.shape[0] != values.size or max(view.dims) >= points.shape[1]:
        raise gplvm_run.InputProblem(
            f"{geometry_path}: /geometry/points ({points.shape}) do not match the plotted latents' dimensions "
            f"{view.dims} or /geometry/log_volume ({values.size} values)")
    label = "log sqrt det E[G] (gplvm geometry)"
    if side >= 2 and points.shape[1] == 2 and not view.lorentz:  # a grid, first coordinate fastest
        grid = values.reshape(side, side)[::-1]  # rows from the top
        x, y = points[:side, 0], points[::side, 1]
        return Background(grid, label, extent=(x[0], x[-1], y[0], y[-1]))
    return Background(values, label, points=points[:, list(view.dims)])


def draw(ax, fig, background):
    """The field in greys under everything else, with its colour bar. Sets the axes' aspect to auto:
    the caller fixes aspect and limits afterwards."""
    from matplotlib.colors import LogNorm

    style = dict(cmap="Greys", zorder=-1, alpha=0.6, norm=LogNorm() if background.log_scale else None)
    if background.extent is not None:
        image = ax.imshow(background.values, extent=background.extent, origin="upper", aspect="auto",
                          interpolation="bilinear", **style)
        if background.disk:
            from matplotlib.patches import Circle

            image.set_clip_path(Circle((0.0, 0.0), 1.0, transform=ax.transData))
    else:
        image = ax.tricontourf(background.points[:, 0], background.points[:, 1], background.values, levels=20,
                               **style)
    fig.colorbar(image, ax=ax, label=background.label, shrink=0.8)

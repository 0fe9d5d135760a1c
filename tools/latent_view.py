"""The latent plane the plots share: which two latent dimensions they show, over which box, and grids on it.

tools/plot_run.py draws the latents in this view, with the predictive variance of a grid of it as the
background, and tools/latent_mosaic.py decodes a grid of the same view, so that a point of the scatter
and the image at the same place of the mosaic are the same latent. The view is square (equal scales
on both axes), the latents' bounding box grown by PADDING of its larger side; the other latent
dimensions are held at the latents' median. Latents on the hyperboloid (latent_space = "lorentz") are
viewed on the Poincare disk, whose points map back to the hyperboloid for decoding.
"""

from dataclasses import dataclass

import numpy as np

PADDING = 0.05
POINCARE_LIMIT = 1.05  # the disk's view: the unit circle with a margin
POINCARE_INSIDE = 0.999  # grid points decoded on the disk: further out they are at hyperbolic infinity


def plot_dims(lengthscales, q):
    """The two latent dimensions the kernel varies fastest along (smallest lengthscales first), else 0 and 1."""
    if lengthscales is None or q < 2:
        return (0, 1)
    a, b = np.argsort(np.asarray(lengthscales, dtype=float), kind="stable")[:2]
    return (int(a), int(b))


def poincare_from_lorentz(points):
    """Points of the hyperboloid (time-like coordinate first) on the Poincare ball: x_1..Q / (1 + x_0)."""
    return points[:, 1:] / (1.0 + points[:, :1])


def lorentz_from_poincare(points):
    """The inverse: p -> ((1 + |p|^2), 2 p) / (1 - |p|^2)."""
    r2 = np.sum(points**2, axis=1, keepdims=True)
    return np.hstack([1.0 + r2, 2.0 * points]) / (1.0 - r2)


@dataclass
class View:
    dims: tuple  # the latent dimensions on the x and y axes
    box: tuple  # xmin, xmax, ymin, ymax
    centre: np.ndarray  # where the other dimensions are held (plotted coordinates)
    lorentz: bool = False  # the coordinates are the Poincare ball's

    @property
    def labels(self):
        what = "Poincare" if self.lorentz else "latent"
        return f"{what} {self.dims[0]}", f"{what} {self.dims[1]}"


def view_of(coordinates, dims, lorentz=False):
    """The square view of the plotted coordinates (N x Q latents, or Poincare coordinates) along `dims`."""
    centre = np.median(coordinates, axis=0)
    if lorentz:
        return View(tuple(dims), (-POINCARE_LIMIT, POINCARE_LIMIT) * 2, centre, True)
    shown = coordinates[:, list(dims)]
    low, high = shown.min(axis=0), shown.max(axis=0)
    middle, half = (low + high) / 2.0, max(float(np.max(high - low)), 1e-12) * (0.5 + PADDING)
    box = (middle[0] - half, middle[0] + half, middle[1] - half, middle[1] + half)
    return View(tuple(dims), box, centre, False)


def grid(view, size):
    """(latents, inside) of a size x size grid over the view, row-major from the top row (high y) down and
    each row left to right: the latents to decode (hyperboloid points for a Lorentz view) and which grid
    points they are (all of them, or those inside the Poincare disk)."""
    xmin, xmax, ymin, ymax = view.box
    xs, ys = np.linspace(xmin, xmax, size), np.linspace(ymax, ymin, size)
    plotted = np.tile(view.centre, (size * size, 1))
    plotted[:, view.dims[0]] = np.tile(xs, size)
    plotted[:, view.dims[1]] = np.repeat(ys, size)
    if not view.lorentz:
        return plotted, np.ones(size * size, dtype=bool)
    inside = np.sqrt(np.sum(plotted**2, axis=1)) < POINCARE_INSIDE
    return lorentz_from_poincare(plotted[inside]), inside

#!/usr/bin/python3
"""A mosaic of decoded images over a grid of latents: what a trained run's decoder draws across its latent space.

The grid covers the view tools/plot_run.py draws the latents in (tools/latent_view.py): the same two latent
dimensions (the smallest kernel lengthscales; 0 and 1 when the kernel has none, as for the VAE) on the same
axes, over the same square box around the training latents, the other dimensions held at their median;
Lorentz runs on the Poincare disk, as plot_run.py draws them. `gplvm predict` decodes the grid (under mpirun
when --ranks > 1), and the predicted means are tiled as grey images on the training data's value range (its
minimum black, its maximum white), so that a faint image is a faint prediction, not a stretched one;
28 x 28 for Fashion-MNIST (the default image shape is the square root of D).

    /usr/bin/python3 tools/latent_mosaic.py results/run.h5 --output mosaic.png --grid 20 --ranks 4

Uses python3-numpy, python3-h5py and python3-matplotlib (headless). Exit status: 0 on success, 2 for bad input,
1 when gplvm predict fails (its message is printed).
"""

import argparse
import os
import sys

import numpy as np

try:
    import matplotlib

    matplotlib.use("Agg")  # headless: no display on compute nodes
    import matplotlib.pyplot as plt

    import gplvm_predict
    import gplvm_run
    import latent_view
except ImportError as exc:  # pragma: no cover - depends on the host
    sys.stderr.write(f"latent_mosaic.py: error: {exc}; install python3-h5py python3-matplotlib\n")
    sys.exit(2)

ROWS_PER_READ = 8192  # the data's value range is read in blocks of rows, never the whole file at once


def plotted_latents(run):
    """The run's latents in plotted coordinates (the Poincare ball for Lorentz runs) and whether they are."""
    if run.attributes.get("latent_space") == "lorentz":
        return latent_view.poincare_from_lorentz(run.latent_mean), True
    return run.latent_mean, False


def grid_view(run):
    """The view plot_run.py draws the run's latents in."""
    coordinates, lorentz = plotted_latents(run)
    q = coordinates.shape[1]
    if q < 2:
        raise gplvm_run.InputProblem(f"{run.path}: a mosaic needs at least 2 latent dimensions, the run has {q}")
    lengthscales = run.lengthscales()
    dims = latent_view.plot_dims(lengthscales if lengthscales is not None and lengthscales.size == q else None, q)
    return latent_view.view_of(coordinates, dims, lorentz)


def image_shape(text, data_dim):
    if text:
        h, w = (int(v) for v in text.lower().split("x"))
    else:
        h = w = int(round(np.sqrt(data_dim)))
    if h * w != data_dim:
        raise gplvm_run.InputProblem(f"image shape {h}x{w} does not hold D = {data_dim} values (use --image-shape)")
    return h, w


def data_range(path, dataset):
    """(min, max) of the training data's values, read in blocks of rows."""
    with gplvm_run.open_h5(path, "data") as h5:
        values = h5.get(dataset)
        if values is None or values.ndim < 1 or values.shape[0] == 0:
            raise gplvm_run.InputProblem(f"{path}: no data at '{dataset}' to take the value range from")
        low, high = np.inf, -np.inf
        for start in range(0, values.shape[0], ROWS_PER_READ):
            block = np.asarray(values[start:start + ROWS_PER_READ], dtype=float)
            low, high = min(low, float(np.nanmin(block))), max(high, float(np.nanmax(block)))
    return low, high


def training_data(run, given):
    """(path, dataset) of the run's training data: --data, else the file the run names."""
    import tomllib

    dataset = "/Y"
    try:
        dataset = tomllib.loads(run.config).get("data", {}).get("dataset", dataset) if run.config else dataset
    except tomllib.TOMLDecodeError:
        pass
    path = given or run.attributes.get("data_file")
    if not path:
        raise gplvm_run.InputProblem(f"{run.path}: names no training data file; give it with --data")
    return path, dataset


def tile(means, size, shape, inside):
    """size x size images, row-major from the top row, as one picture; grid points outside the view's disk blank."""
    h, w = shape
    images = np.full((size * size, h * w), np.nan)
    images[inside] = means
    images = images.reshape(size, size, h, w)
    return images.transpose(0, 2, 1, 3).reshape(size * h, size * w)


def mosaic_figure(mosaic, view, value_range, title):
    """The mosaic on the latent axes, in grey from the data's minimum to its maximum."""
    fig, ax = plt.subplots(figsize=(8, 8))
    ax.imshow(mosaic, cmap="gray", vmin=value_range[0], vmax=value_range[1], interpolation="nearest",
              extent=view.box, origin="upper")
    if view.lorentz:
        theta = np.linspace(0.0, 2.0 * np.pi, 361)
        ax.plot(np.cos(theta), np.sin(theta), color="0.3", linewidth=0.8)
    xlabel, ylabel = view.labels
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xlim(*view.box[:2])
    ax.set_ylim(*view.box[2:])
    ax.set_aspect("equal")
    ax.set_title(title, fontsize=10)
    return fig


def save(fig, output):
    """Written under a temporary name and renamed, so that no partial PNG bears the final name."""
    temporary = output + ".tmp.png"
    fig.savefig(temporary, dpi=100, bbox_inches="tight")
    plt.close(fig)
    os.replace(temporary, output)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="run file written by gplvm train")
    p.add_argument("--output", required=True, help="PNG file to write")
    p.add_argument("--grid", type=int, default=15, help="latents per side of the grid (default 15)")
    p.add_argument("--image-shape", default="", help="HxW of one decoded row (default: square, sqrt(D))")
    p.add_argument("--data", help="the training data, for its value range (default: the file the run names)")
    p.add_argument("--gplvm", default=gplvm_predict.default_gplvm(),
                   help="the gplvm executable (default: build/gplvm, then PATH)")
    p.add_argument("--ranks", type=int, default=1, help="MPI ranks for gplvm predict (default 1: no mpirun)")
    p.add_argument("--mpirun", default="mpirun", help="MPI launcher (default mpirun)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        if args.grid < 2:
            raise gplvm_run.InputProblem("--grid must be at least 2")
        run = gplvm_run.load_run(args.run)
        view = grid_view(run)
        shape = image_shape(args.image_shape, int(run.attributes.get("data_dim", 0)))
        value_range = data_range(*training_data(run, args.data))
        out_dir = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(out_dir):
            raise gplvm_run.InputProblem(f"output directory {out_dir} does not exist")
    except gplvm_run.InputProblem as exc:
        sys.stderr.write(f"latent_mosaic.py: error: {exc}\n")
        return 2
    latents, inside = latent_view.grid(view, args.grid)
    try:
        means = gplvm_predict.predict(args.run, latents, gplvm=args.gplvm, ranks=args.ranks, mpirun=args.mpirun).mean
    except gplvm_predict.PredictFailed as exc:
        sys.stderr.write(f"latent_mosaic.py: error: {exc}\n")
        return 1
    title = (f"{os.path.basename(args.run)}: decoded means on the latent plane of plot_run.py\n"
             f"grey scale: the training data's range [{value_range[0]:.3g}, {value_range[1]:.3g}]")
    save(mosaic_figure(tile(means, args.grid, shape, inside), view, value_range, title), args.output)
    print(f"wrote {args.output}: {args.grid} x {args.grid} decoded latents, dims {view.dims}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

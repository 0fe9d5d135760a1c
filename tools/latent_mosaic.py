#!/usr/bin/python3
"""A mosaic of decoded images over a grid of latents: what a trained run's decoder draws across its latent space.

The grid spans the two latent dimensions with the smallest kernel lengthscales (the ones the decoder varies
fastest along; dimensions 0 and 1 when the kernel has no lengthscales, as for the VAE), from the 1st to the 99th
percentile of the training latents, the other dimensions held at their median. `gplvm predict` decodes the grid
(under mpirun when --ranks > 1) and the predicted means are tiled as images, 28 x 28 for Fashion-MNIST (the
default image shape is the square root of D).

    /usr/bin/python3 tools/latent_mosaic.py results/run.h5 --output mosaic.png --grid 20 --ranks 4

Uses python3-numpy, python3-h5py and python3-matplotlib (headless). Exit status: 0 on success, 2 for bad input,
1 when gplvm predict fails (its message is printed).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

try:
    import matplotlib

    matplotlib.use("Agg")  # headless: no display on compute nodes
    import matplotlib.pyplot as plt

    import gplvm_run
except ImportError as exc:  # pragma: no cover - depends on the host
    sys.stderr.write(f"latent_mosaic.py: error: {exc}; install python3-h5py python3-matplotlib\n")
    sys.exit(2)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def grid_dimensions(run):
    """The two latent dimensions with the smallest lengthscales (ties to the lower index)."""
    q = run.latent_mean.shape[1]
    if q < 2:
        raise gplvm_run.InputProblem(f"{run.path}: a mosaic needs at least 2 latent dimensions, the run has {q}")
    lengthscales = run.lengthscales()
    if lengthscales is None:
        return 0, 1
    order = np.argsort(lengthscales, kind="stable")
    return tuple(sorted(int(i) for i in order[:2]))


def grid_latents(run, dims, size):
    """size x size latents, row-major, first grid dimension down the mosaic's rows (top = high values)."""
    x = run.latent_mean
    centre = np.median(x, axis=0)
    lo, hi = np.percentile(x[:, dims], [1, 99], axis=0)
    rows = np.linspace(hi[0], lo[0], size)
    cols = np.linspace(lo[1], hi[1], size)
    latents = np.tile(centre, (size * size, 1))
    latents[:, dims[0]] = np.repeat(rows, size)
    latents[:, dims[1]] = np.tile(cols, size)
    return latents


def image_shape(text, data_dim):
    if text:
        h, w = (int(v) for v in text.lower().split("x"))
    else:
        h = w = int(round(np.sqrt(data_dim)))
    if h * w != data_dim:
        raise gplvm_run.InputProblem(f"image shape {h}x{w} does not hold D = {data_dim} values (use --image-shape)")
    return h, w


def tile(means, size, shape):
    h, w = shape
    images = means.reshape(size, size, h, w)
    return images.transpose(0, 2, 1, 3).reshape(size * h, size * w)


def predict(args, latents_path, output_path):
    command = [args.gplvm, "predict", "--run", args.run, "--latents", latents_path, "--output", output_path]
    if args.ranks > 1:
        command = [args.mpirun, "-n", str(args.ranks), "--oversubscribe", *command]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        raise RuntimeError(f"gplvm predict exited with {result.returncode}")


def default_gplvm():
    built = os.path.join(REPO, "build", "gplvm")
    return built if os.path.isfile(built) else (shutil.which("gplvm") or "gplvm")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="run file written by gplvm train")
    p.add_argument("--output", required=True, help="PNG file to write")
    p.add_argument("--grid", type=int, default=15, help="latents per side of the grid (default 15)")
    p.add_argument("--image-shape", default="", help="HxW of one decoded row (default: square, sqrt(D))")
    p.add_argument("--gplvm", default=default_gplvm(), help="the gplvm executable (default: build/gplvm, then PATH)")
    p.add_argument("--ranks", type=int, default=1, help="MPI ranks for gplvm predict (default 1: no mpirun)")
    p.add_argument("--mpirun", default="mpirun", help="MPI launcher (default mpirun)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        if args.grid < 2:
            raise gplvm_run.InputProblem("--grid must be at least 2")
        run = gplvm_run.load_run(args.run)
        dims = grid_dimensions(run)
        shape = image_shape(args.image_shape, int(run.attributes.get("data_dim", 0)))
        out_dir = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(out_dir):
            raise gplvm_run.InputProblem(f"output directory {out_dir} does not exist")
    except gplvm_run.InputProblem as exc:
        sys.stderr.write(f"latent_mosaic.py: error: {exc}\n")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        latents_path, predictions_path = os.path.join(tmp, "grid.h5"), os.path.join(tmp, "predictions.h5")
        gplvm_run.write_latents(latents_path, grid_latents(run, dims, args.grid))
        try:
            predict(args, latents_path, predictions_path)
        except RuntimeError as exc:
            sys.stderr.write(f"latent_mosaic.py: error: {exc}\n")
            return 1
        means = gplvm_run.load_predictions(predictions_path).mean
    mosaic = tile(means, args.grid, shape)
    fig, ax = plt.subplots(figsize=(8, 8 * mosaic.shape[0] / mosaic.shape[1]))
    ax.imshow(mosaic, cmap="gray", interpolation="nearest")
    ax.set_title(f"{os.path.basename(args.run)}: decoded grid over latent dims {dims[0]} (down), {dims[1]} (across)")
    ax.axis("off")
    temporary = args.output + ".tmp.png"
    fig.savefig(temporary, dpi=100, bbox_inches="tight")
    plt.close(fig)
    os.replace(temporary, args.output)  # never a partial PNG under the final name
    print(f"wrote {args.output}: {args.grid} x {args.grid} decoded latents, dims {dims}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

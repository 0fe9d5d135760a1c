#!/usr/bin/python3
"""Plots of a trained decoder's geometry.

  plot_geometry.py map GEOMETRY.h5 [--geodesics G.h5] [--latents RUN_OR_ENCODED.h5] --output map.png
      the log magnification factor (log sqrt det E[G], from `gplvm geometry` on a 2-D grid) under
      the latents, with the geodesics of `gplvm geodesic` (solid) and their straight lines (dashed)
  plot_geometry.py strip GEODESICS.h5 --pair P --image-shape 28,28 --output strip.png
      the decoded images along geodesic P (top row) and along its straight line (bottom row); needs
      `gplvm geodesic --decode`
"""
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def magnification_map(args):
    with h5py.File(args.geometry, "r") as f:
        points = f["/geometry/points"][...]
        log_volume = f["/geometry/log_volume"][...].reshape(-1)
        grid = int(f["/geometry"].attrs.get("grid", 0))
        conditioning = f["/latent/conditioning"][...]
    if points.shape[1] != 2 or grid < 2:
        sys.exit(f"{args.geometry}: the map needs a 2-D grid from `gplvm geometry --grid N` (got Q = {points.shape[1]})")
    fig, ax = plt.subplots(figsize=(7, 6))
    xs, ys = points[:grid, 0], points[::grid, 1]
    image = ax.imshow(log_volume.reshape(grid, grid), origin="lower", extent=(xs[0], xs[-1], ys[0], ys[-1]),
                      cmap="viridis", aspect="auto")
    fig.colorbar(image, ax=ax, label="log magnification  log sqrt det E[G]")
    latents, labels = conditioning, None
    if args.latents:
        with h5py.File(args.latents, "r") as f:
            latents = f["/latent/mean"][...]
            if "/labels" in f:
                labels = f["/labels"][...]
    ax.scatter(latents[:, 0], latents[:, 1], s=4, c=labels if labels is not None else "white",
               cmap="tab10", edgecolors="none", alpha=0.8)
    if args.geodesics:
        with h5py.File(args.geodesics, "r") as f:
            curves, straight = f["/geodesics/curve"][...], f["/geodesics/straight"][...]
        for c, s in zip(curves[: args.max_curves], straight[: args.max_curves]):
            ax.plot(c[:, 0], c[:, 1], color="red", lw=1.2)
            ax.plot(s[:, 0], s[:, 1], color="white", lw=0.8, ls="--")
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    ax.set_title(args.title or "expected metric: magnification and geodesics")
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)


def decoded_strip(args):
    shape = tuple(int(v) for v in args.image_shape.split(","))
    with h5py.File(args.geodesics, "r") as f:
        if "/geodesics/decoded" not in f:
            sys.exit(f"{args.geodesics}: no /geodesics/decoded; run gplvm geodesic with --decode")
        along, straight = f["/geodesics/decoded"][args.pair], f["/geodesics/decoded_straight"][args.pair]
    if along.shape[1] != int(np.prod(shape)):
        sys.exit(f"--image-shape {args.image_shape} does not hold {along.shape[1]} values")
    picks = np.linspace(0, along.shape[0] - 1, args.images).round().astype(int)
    fig, axes = plt.subplots(2, args.images, figsize=(args.images * 1.1, 2.6))
    for row, (name, images) in enumerate((("geodesic", along), ("straight line", straight))):
        for col, i in enumerate(picks):
            axes[row, col].imshow(images[i].reshape(shape), cmap="gray")
            axes[row, col].axis("off")
        axes[row, 0].set_title(name, fontsize=8, loc="left")
    fig.tight_layout()
    fig.savefig(args.output, dpi=args.dpi)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="plot", required=True)
    m = sub.add_parser("map")
    m.add_argument("geometry")
    m.add_argument("--geodesics")
    m.add_argument("--latents")
    m.add_argument("--max-curves", type=int, default=100)
    m.add_argument("--title")
    s = sub.add_parser("strip")
    s.add_argument("geodesics")
    s.add_argument("--pair", type=int, default=0)
    s.add_argument("--image-shape", default="28,28")
    s.add_argument("--images", type=int, default=10)
    for p in (m, s):
        p.add_argument("--output", required=True)
        p.add_argument("--dpi", type=int, default=120)
    args = parser.parse_args()
    magnification_map(args) if args.plot == "map" else decoded_strip(args)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Plot the latents and the training curve of one gplvm run file, or of any other file gplvm writes.

Reads the run file layout (docs/architecture.md, "Files, configuration and the command line"):
  /latent/mean   N x Q latent means, in data-row order (run files, checkpoints, encode and evaluate outputs;
                 data files from generate have /latent_true instead, imported data only /Y: their first
                 two principal components are plotted)
                 With the attribute latent_space = "lorentz" the rows are N x (Q + 1) points of the hyperboloid
                 (time-like coordinate first), drawn on the Poincare disk x -> x_1..Q / (1 + x_0) with the unit
                 circle and a grid of geodesics
  /latent/var    N x Q latent variances (optional; Bayesian runs: drawn as one-standard-deviation ellipses,
                 except for Lorentz latents, whose variances are in the tangent space at each mean)
  /train/curve   M x 4: step, epoch, objective, wall time in seconds (optional: run files and checkpoints)
  /labels        N integer labels (optional; in the file, or in the data file given by --data)
  /params/kernel/lengthscales  ARD lengthscales (in the run file, or in the run an encode or evaluate output
                 names in its "run" attribute): the default --dims are the two with the smallest

Writes OUT/latents.png (the two most relevant latent dimensions, or the ones given by --dims, coloured by
label; Fashion-MNIST labels are named by class) and, when the file has a training curve, OUT/curve.png
(objective against step and against wall time, raw and smoothed).

Uses only Debian's python3-numpy, python3-h5py and python3-matplotlib, headless (Agg).
Exit status: 0 on success, 2 for a missing or malformed input file or dataset (with a one-line message).
"""

import argparse
import os
import sys

import numpy as np


def missing_package(exc):  # pragma: no cover - depends on the host
    sys.stderr.write(
        f"plot_run.py: error: {exc}; install the Debian packages python3-h5py python3-matplotlib "
        "and run with /usr/bin/python3\n"
    )
    sys.exit(2)


try:
    import h5py
    from gplvm_run import InputProblem, open_h5, read_curve, read_dataset  # the run loader (tools/gplvm_run.py)
except ImportError as exc:  # pragma: no cover - depends on the host
    missing_package(exc)

plt = EllipseCollection = Line2D = None  # matplotlib, imported once the inputs have been read and checked


def import_matplotlib():
    """matplotlib takes a second to import: help and input errors answer without it."""
    global plt, EllipseCollection, Line2D
    try:
        import matplotlib

        matplotlib.use("Agg")  # headless: no display on compute nodes
        import matplotlib.pyplot as plt
        from matplotlib.collections import EllipseCollection
        from matplotlib.lines import Line2D
    except ImportError as exc:  # pragma: no cover - depends on the host
        missing_package(exc)

EXIT_INPUT = 2
MAX_LEGEND_CLASSES = 20  # more distinct labels than this get a colourbar instead of a legend
MAX_ELLIPSES = 1500  # posterior ellipses drawn for at most this many (random) points, so the plot stays legible
FASHION_MNIST_CLASSES = (
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"
)


# ----------------------------------------------------------------------------------------------------------------
# Reading


def principal_components(y, count=2):
    """The data's first `count` principal component scores (for data files without latents)."""
    y = np.asarray(y, dtype=float)
    centred = y - y.mean(axis=0)
    _, _, vt = np.linalg.svd(centred[:: max(1, centred.shape[0] // 20000)], full_matrices=False)
    return centred @ vt[: min(count, vt.shape[0])].T


def read_latents(run):
    """(mean, var, what): the latents to plot, their variances (or None), and what they are."""
    source = "/latent/mean" if "/latent/mean" in run else "/latent_true" if "/latent_true" in run else None
    if source is None and "/Y" in run:
        return principal_components(read_dataset(run, "/Y")), None, "principal component"
    mean = np.asarray(read_dataset(run, source or "/latent/mean"), dtype=float)
    if mean.ndim == 1:
        mean = mean[:, None]
    if mean.ndim != 2 or mean.shape[0] == 0 or mean.shape[1] == 0:
        raise InputProblem(f"{run.filename}: '{source}' must be a non-empty N x Q matrix, got shape {mean.shape}")
    var = read_dataset(run, "/latent/var", required=False) if source == "/latent/mean" else None
    if var is not None:
        var = np.asarray(var, dtype=float).reshape(mean.shape[0], -1)
    if source == "/latent/mean" and latent_space(run[source]) == "lorentz":
        return to_poincare(run, mean), None, "Poincare"
    return mean, var, "latent" if source == "/latent/mean" else "true latent"


def latent_space(dataset):
    value = dataset.attrs.get("latent_space", "euclidean")
    return value.decode() if isinstance(value, bytes) else str(value)


def to_poincare(run, lorentz):
    """Points of the hyperboloid (time-like coordinate first) on the Poincare ball: x_1..Q / (1 + x_0)."""
    if lorentz.shape[1] < 2 or np.any(lorentz[:, 0] < 1.0 - 1e-9):
        raise InputProblem(f"{run.filename}: '/latent/mean' is marked lorentz but its rows are not on the hyperboloid")
    return lorentz[:, 1:] / (1.0 + lorentz[:, :1])


def attribute(h5, name):
    value = h5.attrs.get(name)
    return value.decode() if isinstance(value, bytes) else value


def read_lengthscales(run, q):
    """The ARD lengthscales (Q of them) of the run, or of the run an encode/evaluate output names; else None."""
    files = [run]
    other = attribute(run, "run")
    if other and os.path.isfile(other):
        try:
            files.append(h5py.File(other, "r"))
        except OSError:
            pass
    try:
        for f in files:
            kernel = f.get("/params/kernel")
            if isinstance(kernel, h5py.Group):
                for name in sorted(kernel, key=lambda n: (n != "lengthscales", n)):
                    values = np.asarray(kernel[name][()], dtype=float).ravel()
                    if name.endswith("lengthscales") and values.size == q:
                        return values
    finally:
        for f in files[1:]:
            f.close()
    return None


def default_dims(lengthscales, q):
    """The two latent dimensions the kernel varies fastest along (smallest lengthscales), else 0 and 1."""
    if lengthscales is None or q < 2:
        return (0, 1)
    a, b = np.argsort(lengthscales, kind="stable")[:2]
    return (int(a), int(b))


def class_names(h5, args, labels):
    """Names for the labels: Fashion-MNIST's classes when the data are Fashion-MNIST, else None."""
    if args.class_names == "none" or labels is None:
        return None
    if args.class_names == "auto":
        sources = [args.data or "", h5.filename] + [str(attribute(h5, a) or "") for a in ("data_file", "test")]
        if not any("fashion" in os.path.basename(s).lower() for s in sources):
            return None
    if not np.issubdtype(labels.dtype, np.integer) or labels.min() < 0 or labels.max() >= len(FASHION_MNIST_CLASSES):
        return None
    return FASHION_MNIST_CLASSES


def read_labels(run, args, n_rows):
    """Labels from --data (required there), else from the run file; None when there are none."""
    path = args.labels_path or "/labels"
    if args.data:
        with open_h5(args.data, "data") as data:
            labels = read_dataset(data, path)
            source = args.data
    else:
        labels = read_dataset(run, path, required=args.labels_path is not None)
        source = run.filename
    if labels is None:
        return None
    labels = np.asarray(labels).ravel()
    if labels.shape[0] != n_rows:
        raise InputProblem(f"{source}: labels '{path}' have {labels.shape[0]} entries but /latent/mean has {n_rows} rows")
    return labels


# ----------------------------------------------------------------------------------------------------------------
# Latent scatter


def marker_style(n):
    """Small markers and more transparency as N grows, so dense regions stay readable."""
    size = float(np.clip(3e4 / n, 0.3, 25.0))
    alpha = float(np.clip(3e3 / n, 0.15, 0.9))
    return size, alpha


def check_dims(mean, dims):
    if mean.shape[1] > 1 and any(d < 0 or d >= mean.shape[1] for d in dims):
        raise InputProblem(f"--dims {dims[0]} {dims[1]}: the latents have only {mean.shape[1]} dimensions")


def scatter_coordinates(mean, dims, what="latent"):
    if mean.shape[1] == 1:  # one latent dimension: plot it against the data-row index
        return np.arange(mean.shape[0], dtype=float), mean[:, 0], "data row", f"{what} 0"
    a, b = dims
    return mean[:, a], mean[:, b], f"{what} {a}", f"{what} {b}"


def draw_uncertainty(ax, mean, var, dims, order):
    """One-standard-deviation ellipses of q(x_n) (error bars with one latent dimension) for a random subset."""
    shown = order[:MAX_ELLIPSES]
    if mean.shape[1] == 1:
        ax.errorbar(shown, mean[shown, 0], yerr=np.sqrt(var[shown, 0]), fmt="none", ecolor="0.5", alpha=0.3,
                    linewidth=0.6, zorder=0)
        return
    a, b = dims
    ellipses = EllipseCollection(
        2 * np.sqrt(var[shown, a]), 2 * np.sqrt(var[shown, b]), np.zeros(shown.size), units="xy",
        offsets=np.column_stack([mean[shown, a], mean[shown, b]]), offset_transform=ax.transData,
        facecolors="none", edgecolors="0.4", linewidths=0.4, alpha=0.35, zorder=0,
    )
    ax.add_collection(ellipses)


def plot_latents(mean, var, labels, dims, title, path, what="latent", names=None):
    x, y, xlabel, ylabel = scatter_coordinates(mean, dims, what)
    n = x.shape[0]
    size, alpha = marker_style(n)
    # Draw in a fixed random order so that no class is painted over another just by its row order.
    order = np.random.default_rng(0).permutation(n)
    fig, ax = plt.subplots(figsize=(7, 6), dpi=130)
    if var is not None:
        draw_uncertainty(ax, mean, var, dims, order)
    if labels is None:
        ax.scatter(x[order], y[order], s=size, alpha=alpha, linewidths=0, rasterized=True)
    else:
        draw_labelled(fig, ax, x[order], y[order], labels[order], size, alpha, names)
    if what == "Poincare":
        draw_poincare_disk(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    subtitle = f"N = {n}, Q = {mean.shape[1]}" + (" (hyperbolic)" if what == "Poincare" else "")
    if var is not None:
        subtitle += f", mean posterior sd = {np.sqrt(np.mean(var)):.3g} (ellipses: 1 sd)"
    ax.set_title(f"{title}\n{subtitle}", fontsize=10)
    if mean.shape[1] > 1:
        ax.set_aspect("equal", adjustable="datalim")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def draw_poincare_disk(ax, distances=(1.0, 2.0, 3.0, 4.0)):
    """The unit circle (the ideal boundary) and a grid of geodesics: the two axes and, crossing each axis
    at right angles at hyperbolic distances +-s from the centre, the geodesic circles orthogonal to the boundary."""
    theta = np.linspace(0.0, 2.0 * np.pi, 721)
    style = dict(color="0.75", linewidth=0.5, zorder=0)
    ax.plot(np.cos(theta), np.sin(theta), color="0.3", linewidth=0.8, zorder=0)
    ax.plot([-1, 1], [0, 0], **style)
    ax.plot([0, 0], [-1, 1], **style)
    for s in distances:
        t = np.tanh(s / 2.0)  # Poincare radius at hyperbolic distance s from the centre
        centre, radius = (1.0 + t * t) / (2.0 * t), (1.0 - t * t) / (2.0 * t)
        x, y = centre + radius * np.cos(theta), radius * np.sin(theta)
        inside = x * x + y * y <= 1.0
        for sx, sy in ((x, y), (-x, y), (y, x), (y, -x)):
            ax.plot(np.where(inside, sx, np.nan), np.where(inside, sy, np.nan), **style)
    ax.set_xlim(-1.05, 1.05)
    ax.set_ylim(-1.05, 1.05)


def draw_labelled(fig, ax, x, y, labels, size, alpha, names=None):
    classes, codes = np.unique(labels, return_inverse=True)
    if len(classes) <= MAX_LEGEND_CLASSES:
        cmap = plt.get_cmap("tab10" if len(classes) <= 10 else "tab20")
        ax.scatter(x, y, c=cmap(codes % cmap.N), s=size, alpha=alpha, linewidths=0, rasterized=True)
        handles = [
            Line2D([], [], marker="o", linestyle="", color=cmap(i % cmap.N), label=names[c] if names else str(c))
            for i, c in enumerate(classes)
        ]
        ax.legend(handles=handles, title="label", fontsize=8, loc="best", markerscale=1.0, framealpha=0.8)
    else:  # many classes (or continuous values): a colour scale reads better than a legend
        values = labels.astype(float) if np.issubdtype(labels.dtype, np.number) else codes.astype(float)
        points = ax.scatter(x, y, c=values, cmap="viridis", s=size, alpha=alpha, linewidths=0, rasterized=True)
        fig.colorbar(points, ax=ax, label="label")


# ----------------------------------------------------------------------------------------------------------------
# Training curve


def smooth(values, window):
    """Centred running mean with the window shrinking at the ends (no lag, no edge droop)."""
    n = values.shape[0]
    if n == 0 or window <= 1:
        return values.copy()
    half = window // 2
    csum = np.concatenate(([0.0], np.cumsum(values)))
    idx = np.arange(n)
    lo, hi = np.maximum(idx - half, 0), np.minimum(idx + half + 1, n)
    return (csum[hi] - csum[lo]) / (hi - lo)


def plot_curve(curve, window, log_y, title, path):
    keep = np.isfinite(curve["objective"]) & np.isfinite(curve["step"]) & np.isfinite(curve["wall_time"])
    step, wall, objective = curve["step"][keep], curve["wall_time"][keep], curve["objective"][keep]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), dpi=130)
    if step.size == 0:
        for ax in axes:
            ax.text(0.5, 0.5, "no training steps recorded", ha="center", va="center", transform=ax.transAxes)
    else:
        w = window if window else max(1, step.size // 50)
        smoothed = smooth(objective, w)
        for ax, xs, xlabel in ((axes[0], step, "step"), (axes[1], wall, "wall time (s)")):
            ax.plot(xs, objective, color="0.6", linewidth=0.6, alpha=0.6, label="per step", rasterized=True)
            ax.plot(xs, smoothed, color="C0", linewidth=1.6, label=f"running mean ({w} steps)")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("objective")
            if log_y:
                ax.set_yscale("symlog" if np.any(objective <= 0) else "log")
            ax.grid(alpha=0.3)
        mark_epochs(axes[0], step, curve["epoch"][keep])
        axes[0].legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def mark_epochs(ax, step, epoch):
    """Faint vertical lines where a new epoch starts, when there are few enough to see."""
    starts = step[1:][np.diff(epoch) != 0]
    if 0 < starts.size <= 30:
        for i, s in enumerate(starts):
            ax.axvline(s, color="0.8", linewidth=0.8, linestyle=":", zorder=0, label="new epoch" if i == 0 else None)


# ----------------------------------------------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="plot_run.py",
        description="Plot the latents (latents.png) and training curve (curve.png) of a gplvm run file, or the "
        "latents of any other file gplvm writes (encode, evaluate, generate, import).",
        epilog="Exit status: 0 on success, 2 for a missing or malformed file or dataset.",
    )
    parser.add_argument("run", metavar="RUN.h5", help="run, checkpoint, encode, evaluate or data file")
    parser.add_argument("--data", metavar="DATA.h5", help="data file to take the labels from")
    parser.add_argument(
        "--labels-path",
        metavar="PATH",
        help="labels dataset (default /labels; optional in the run file, required when given or with --data)",
    )
    parser.add_argument(
        "--out-dir", metavar="DIR", help="output directory (default: RUN_plots next to the run file, RUN = its stem)"
    )
    parser.add_argument(
        "--dims", type=int, nargs=2, metavar=("A", "B"),
        help="latent dims to plot (default: the two with the smallest ARD lengthscales, else 0 1)",
    )
    parser.add_argument(
        "--class-names", choices=("auto", "fashion_mnist", "none"), default="auto",
        help="label names in the legend (auto: Fashion-MNIST's classes when the data file's name says fashion)",
    )
    parser.add_argument("--smooth", type=int, default=0, metavar="W", help="running-mean window (default M/50)")
    parser.add_argument("--log-y", action="store_true", help="logarithmic objective axis (symlog if any <= 0)")
    return parser.parse_args(argv)


def default_out_dir(run_path):
    stem = os.path.splitext(os.path.basename(run_path))[0]
    return os.path.join(os.path.dirname(os.path.abspath(run_path)), f"{stem}_plots")


def main(argv=None):
    args = parse_args(argv)
    out_dir = args.out_dir or default_out_dir(args.run)
    try:
        with open_h5(args.run, "run") as run:  # read and check everything before writing anything
            mean, var, what = read_latents(run)
            curve = read_curve(run) if "/train/curve" in run else None
            labels = read_labels(run, args, mean.shape[0])
            dims = args.dims or default_dims(read_lengthscales(run, mean.shape[1]), mean.shape[1])
            names = class_names(run, args, labels)
        check_dims(mean, dims)
        os.makedirs(out_dir, exist_ok=True)
    except InputProblem as exc:
        sys.stderr.write(f"plot_run.py: error: {exc}\n")
        return EXIT_INPUT
    except OSError as exc:
        sys.stderr.write(f"plot_run.py: error: cannot create output directory {out_dir}: {exc}\n")
        return EXIT_INPUT
    import_matplotlib()
    title = os.path.basename(args.run)
    plot_latents(mean, var, labels, dims, title, os.path.join(out_dir, "latents.png"), what, names)
    if curve is None:
        print(f"wrote {os.path.join(out_dir, 'latents.png')} (the file has no training curve)")
        return 0
    plot_curve(curve, args.smooth, args.log_y, title, os.path.join(out_dir, "curve.png"))
    print(f"wrote {os.path.join(out_dir, 'latents.png')} and {os.path.join(out_dir, 'curve.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

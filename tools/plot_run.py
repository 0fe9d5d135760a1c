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
  /labels attribute "names"  the class names of the legend (in the data file: tools/label_names.py)

Writes OUT/latents.png (the two most relevant latent dimensions, or the ones given by --dims, coloured by
label, on the view tools/latent_mosaic.py decodes: tools/latent_view.py) with a background in grey: the
run's predictive variance on a grid (gplvm predict; runs with a GP decoder, and the encode and evaluate
outputs of such runs), or with --geometry the log magnification of a gplvm geometry output; and, when
the file has a training curve, OUT/curve.png (tools/plot_curve.py: minibatch steps raw and smoothed
against step and wall time, full-batch iterations on a readable scale).

Uses only Debian's python3-numpy, python3-h5py and python3-matplotlib, headless (Agg).
Exit status: 0 on success, 2 for a missing or malformed input file or dataset (with a one-line message),
1 when gplvm predict fails for --background variance.
"""

import argparse
import os
import sys
from dataclasses import dataclass

import numpy as np


def missing_package(exc):  # pragma: no cover - depends on the host
    sys.stderr.write(
        f"plot_run.py: error: {exc}; install the Debian packages python3-h5py python3-matplotlib "
        "and run with /usr/bin/python3\n"
    )
    sys.exit(2)


try:
    import h5py

    import gplvm_predict
    import label_names
    import latent_background
    import latent_view
    import plot_curve
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

EXIT_PREDICT, EXIT_INPUT = 1, 2
MAX_LEGEND_CLASSES = 20  # more distinct labels than this get a colourbar instead of a legend
MAX_ELLIPSES = 1500  # posterior ellipses drawn for at most this many (random) points, so the plot stays legible
BACKGROUND_CONDITION = 2000  # training rows the variance background conditions on: seconds, not minutes, at 10^5


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
        if mean.shape[1] < 2 or np.any(mean[:, 0] < 1.0 - 1e-9):
            raise InputProblem(f"{run.filename}: '/latent/mean' is marked lorentz but its rows are not on the hyperboloid")
        return latent_view.poincare_from_lorentz(mean), None, "Poincare"
    return mean, var, "latent" if source == "/latent/mean" else "true latent"


def latent_space(dataset):
    value = dataset.attrs.get("latent_space", "euclidean")
    return value.decode() if isinstance(value, bytes) else str(value)


def attribute(h5, name):
    value = h5.attrs.get(name)
    return value.decode() if isinstance(value, bytes) else value


def decoder_run(run):
    """The run file whose decoder the latents belong to: the file itself when it holds parameters (a run or
    a checkpoint), else the run an encode or evaluate output names; None for data files."""
    if "/params" in run:
        return run.filename
    other = attribute(run, "run")
    return other if other and os.path.isfile(other) else None


def read_lengthscales(run, q):
    """The ARD lengthscales (Q of them) of the run, or of the run an encode/evaluate output names; else None."""
    files = [run]
    other = decoder_run(run)
    if other and other != run.filename:
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


@dataclass
class LatentPlot:
    """What latents.png shows: the latents (N x Q, plotted coordinates), their variances, labels and names, what
    they are ("latent", "Poincare", "true latent", "principal component"), the plotted dims, the shared view
    (None for one latent dimension) and the background field (or None)."""

    mean: np.ndarray
    var: np.ndarray
    labels: np.ndarray
    names: tuple
    what: str
    dims: tuple
    view: latent_view.View = None
    background: latent_background.Background = None
    note: str = None  # that the run did not converge, when its file says so


def plot_latents(p, title, path):
    x, y, xlabel, ylabel = scatter_coordinates(p.mean, p.dims, p.what)
    n = x.shape[0]
    size, alpha = marker_style(n)
    # Draw in a fixed random order so that no class is painted over another just by its row order.
    order = np.random.default_rng(0).permutation(n)
    fig, ax = plt.subplots(figsize=(7.5, 6), dpi=130)
    if p.background is not None:
        latent_background.draw(ax, fig, p.background)
    if p.var is not None:
        draw_uncertainty(ax, p.mean, p.var, p.dims, order)
    if p.labels is None:
        ax.scatter(x[order], y[order], s=size, alpha=alpha, linewidths=0, rasterized=True)
    else:
        draw_labelled(fig, ax, x[order], y[order], p.labels[order], size, alpha, p.names)
    if p.what == "Poincare":
        draw_poincare_disk(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    subtitle = f"N = {n}, Q = {p.mean.shape[1]}" + (" (hyperbolic)" if p.what == "Poincare" else "")
    if p.var is not None:
        subtitle += f", mean posterior sd = {np.sqrt(np.mean(p.var)):.3g} (ellipses: 1 sd)"
    if p.note:
        subtitle += f"\n{p.note}"
    ax.set_title(f"{title}\n{subtitle}", fontsize=10, color="firebrick" if p.note else "black")
    if p.view is not None:  # the view latent_mosaic.py decodes, at equal scales
        ax.set_xlim(*p.view.box[:2])
        ax.set_ylim(*p.view.box[2:])
        ax.set_aspect("equal", adjustable="box")
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
# Background and curve


def has_gp_decoder(path):
    try:
        with h5py.File(path, "r") as h5:
            return isinstance(h5.get("/params/kernel"), h5py.Group)
    except OSError:
        return False


def read_background(run, args, view):
    """The background field of latents.png: --geometry's log magnification, else (--background auto or
    variance) the predictive variance of the decoder's run, when it has a GP decoder; else None. In auto
    mode a failing gplvm predict is a warning, the plot drawn without."""
    if view is None:
        return None
    if args.geometry:
        return latent_background.log_magnification(args.geometry, view)
    decoder = decoder_run(run)
    if args.background == "none" or not (decoder and has_gp_decoder(decoder)):
        if args.background == "variance":
            raise InputProblem(f"{run.filename}: --background variance needs a run with a GP decoder "
                               "(or an encode or evaluate output of one)")
        return None
    try:
        return latent_background.predictive_variance(decoder, view, gplvm=args.gplvm, ranks=args.ranks,
                                                     condition=args.background_condition or None)
    except gplvm_predict.PredictFailed as exc:
        if args.background == "variance":
            raise
        sys.stderr.write(f"plot_run.py: warning: latents.png without its variance background: {exc}\n")
        return None


def run_attributes(run):
    return {name: attribute(run, name) for name in run.attrs}


def config_text(run):
    value = run.get("/config")
    if not isinstance(value, h5py.Dataset):
        return ""
    value = value[()]
    return value.decode() if isinstance(value, bytes) else str(value)


# ----------------------------------------------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="plot_run.py",
        description="Plot the latents (latents.png) and training curve (curve.png) of a gplvm run file, or the "
        "latents of any other file gplvm writes (encode, evaluate, generate, import).",
        epilog="Exit status: 0 on success, 2 for a missing or malformed file or dataset, 1 when gplvm predict "
        "fails for --background variance.",
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
        help="label names in the legend (auto: the 'names' attribute of the data file's labels; fashion_mnist: "
        "Fashion-MNIST's classes)",
    )
    parser.add_argument(
        "--background", choices=("auto", "variance", "none"), default="auto",
        help="the field under the latents: the predictive variance on a grid (gplvm predict; auto: when the run "
        "has a GP decoder and predict succeeds) or none",
    )
    parser.add_argument("--geometry", metavar="GEOMETRY.h5",
                        help="a gplvm geometry output: its log sqrt det E[G] as the background instead")
    parser.add_argument("--background-condition", type=int, default=BACKGROUND_CONDITION, metavar="M",
                        help=f"training rows the variance is conditioned on (default {BACKGROUND_CONDITION}; 0 all)")
    parser.add_argument("--gplvm", default=gplvm_predict.default_gplvm(),
                        help="the gplvm executable (default: build/gplvm, then PATH)")
    parser.add_argument("--ranks", type=int, default=1, help="MPI ranks for gplvm predict (default 1: no mpirun)")
    parser.add_argument("--smooth", type=int, default=0, metavar="W", help="running-mean window (default M/50)")
    parser.add_argument("--log-y", action="store_true", help="logarithmic objective axis (symlog if any <= 0)")
    return parser.parse_args(argv)


def default_out_dir(run_path):
    stem = os.path.splitext(os.path.basename(run_path))[0]
    return os.path.join(os.path.dirname(os.path.abspath(run_path)), f"{stem}_plots")


def read_inputs(run, args):
    """The latent plot and the curve (or None) of the open input file: everything read and checked."""
    mean, var, what = read_latents(run)
    labels = read_labels(run, args, mean.shape[0])
    dims = tuple(args.dims or latent_view.plot_dims(read_lengthscales(run, mean.shape[1]), mean.shape[1]))
    check_dims(mean, dims)
    view = latent_view.view_of(mean, dims, lorentz=what == "Poincare") if mean.shape[1] > 1 else None
    names = label_names.class_names(run, labels, args.class_names, args.data, args.labels_path or "/labels")
    attributes = run_attributes(run)
    is_full_batch = plot_curve.full_batch(attributes, config_text(run))
    note = plot_curve.unconverged_note(attributes, is_full_batch)
    plot = LatentPlot(mean, var, labels, names, what, dims, view, read_background(run, args, view), note)
    curve = dict(curve=read_curve(run), is_full_batch=is_full_batch, note=note) if "/train/curve" in run else None
    return plot, curve


def main(argv=None):
    args = parse_args(argv)
    out_dir = args.out_dir or default_out_dir(args.run)
    try:
        with open_h5(args.run, "run") as run:  # read and check everything before writing anything
            plot, curve = read_inputs(run, args)
        os.makedirs(out_dir, exist_ok=True)
    except InputProblem as exc:
        sys.stderr.write(f"plot_run.py: error: {exc}\n")
        return EXIT_INPUT
    except gplvm_predict.PredictFailed as exc:
        sys.stderr.write(f"plot_run.py: error: {exc}\n")
        return EXIT_PREDICT
    except OSError as exc:
        sys.stderr.write(f"plot_run.py: error: cannot create output directory {out_dir}: {exc}\n")
        return EXIT_INPUT
    import_matplotlib()
    title = os.path.basename(args.run)
    latents_png = os.path.join(out_dir, "latents.png")
    plot_latents(plot, title, latents_png)
    if curve is None:
        print(f"wrote {latents_png} (the file has no training curve)")
        return 0
    curve_png = os.path.join(out_dir, "curve.png")
    plot_curve.plot_curve(plt, curve["curve"], curve_png, title, args.smooth, args.log_y, curve["is_full_batch"],
                          curve["note"])
    print(f"wrote {latents_png} and {curve_png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

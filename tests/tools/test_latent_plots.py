#!/usr/bin/python3
"""The latent plots on real runs: tools/plot_run.py's background (the predictive variance from gplvm predict,
or a gplvm geometry output's log magnification) and tools/latent_mosaic.py's mosaic on the same view.

usage: /usr/bin/python3 tests/tools/test_latent_plots.py GPLVM   (plain asserts; exits non-zero on failure)
"""

import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(REPO, "tools")
sys.dont_write_bytecode = True  # no __pycache__ left in tools/
sys.path.insert(0, TOOLS)
import gplvm_run  # noqa: E402
import latent_mosaic  # noqa: E402
import plot_run  # noqa: E402

GPLVM = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(REPO, "build", "gplvm")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def gplvm(tmp, *args):
    result = subprocess.run([GPLVM, *args], cwd=tmp, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"gplvm {' '.join(args)}: {result.stderr}"


def train_runs(tmp):
    """A SAS run on 300 rows of a 2-D GP sample (16 columns, a square image of 4 x 4) and a Bayesian SAS run
    with hyperbolic latents on the binary tree of depth 3."""
    gplvm(tmp, "generate", "--kind", "gp", "--n", "300", "--d", "16", "--seed", "1", "--output", "gp.h5")
    gplvm(tmp, "train", "--data.path=gp.h5", "--output.path=run.h5", "--sas.batch_size=100",
          "--sas.active_size=50", "--train.max_steps=60", "--train.learning_rate=0.01")
    gplvm(tmp, "generate", "--kind", "binary_tree", "--depth", "3", "--output", "tree.h5")
    gplvm(tmp, "train", "--data.path=tree.h5", "--output.path=tree_run.h5", "--model.kind=bayesian_sas",
          "--model.latent_space=lorentz", "--model.kernel=hyperboloid_exp", "--model.lengthscale=2",
          "--sas.batch_size=40", "--sas.active_size=20", "--train.max_steps=20")


def inputs(path, *options):
    args = plot_run.parse_args([path, "--gplvm", GPLVM, *options])
    with h5py.File(path, "r") as run:
        plot, _ = plot_run.read_inputs(run, args)
    return plot


def grid_centres(view, size):
    """The plotted coordinates of a size x size image over the view's box, rows from the top."""
    xmin, xmax, ymin, ymax = view.box
    xs, ys = np.linspace(xmin, xmax, size), np.linspace(ymax, ymin, size)
    return np.meshgrid(xs, ys)


def test_variance_is_low_at_the_latents_and_high_away_from_them(tmp):
    plot = inputs(os.path.join(tmp, "run.h5"))
    background = plot.background
    assert background is not None and background.values.shape == (60, 60), background
    assert np.all(np.isfinite(background.values)) and np.all(background.values > 0)
    assert background.extent == plot.view.box and "given 300 of the 300 training rows" in background.label
    x, y = grid_centres(plot.view, 60)
    latents = plot.mean[:, list(plot.dims)]
    nearest = np.min(np.hypot(x[..., None] - latents[:, 0], y[..., None] - latents[:, 1]), axis=-1)
    width = plot.view.box[1] - plot.view.box[0]
    near, far = background.values[nearest < 0.02 * width], background.values[nearest > 0.1 * width]
    assert near.size and far.size, "the view has both cells at the latents and cells away from them"
    assert np.median(near) < np.median(far), (np.median(near), np.median(far))


def test_geometry_background_is_the_log_magnification_on_its_grid(tmp):
    gplvm(tmp, "geometry", "--run", "run.h5", "--grid", "12", "--output", "geometry.h5")
    with h5py.File(os.path.join(tmp, "geometry.h5"), "r") as f:
        points, log_volume = f["/geometry/points"][()], f["/geometry/log_volume"][()].ravel()
    plot = inputs(os.path.join(tmp, "run.h5"), "--geometry", os.path.join(tmp, "geometry.h5"))
    background = plot.background
    assert background.extent == (points[0, 0], points[11, 0], points[0, 1], points[-1, 1]), background.extent
    # gplvm geometry's grid runs first coordinate fastest from (xmin, ymin); the image's rows from the top.
    assert background.values[-1, 0] == log_volume[0] and background.values[0, -1] == log_volume[-1]
    assert background.values[-1, 1] == log_volume[1], "the first coordinate runs along a row"
    assert "log sqrt det" in background.label


def test_lorentz_background_on_the_poincare_disk(tmp):
    plot = inputs(os.path.join(tmp, "tree_run.h5"))
    background = plot.background
    assert plot.what == "Poincare" and background.disk and background.extent == (-1.05, 1.05, -1.05, 1.05)
    assert np.all(np.isfinite(background.values))
    corner = background.values[0, 0]  # outside the disk: the largest variance, the prior's
    assert corner == background.values.max(), (corner, background.values.max())


def test_plot_run_writes_the_background_plot(tmp):
    for run in ("run.h5", "tree_run.h5"):
        out = os.path.join(tmp, run + "_plots")
        result = subprocess.run([sys.executable, os.path.join(TOOLS, "plot_run.py"), run, "--out-dir", out,
                                 "--gplvm", GPLVM, "--background", "variance"],
                                cwd=tmp, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        assert "warning" not in result.stderr, result.stderr
        with open(os.path.join(out, "latents.png"), "rb") as f:
            assert f.read(8) == PNG_SIGNATURE


def test_mosaic_decodes_the_view_plot_run_draws(tmp):
    for path in ("run.h5", "tree_run.h5"):
        plot = inputs(os.path.join(tmp, path), "--background", "none")
        view = latent_mosaic.grid_view(gplvm_run.load_run(os.path.join(tmp, path)))
        assert view.dims == plot.view.dims and np.allclose(view.box, plot.view.box), (view, plot.view)
        assert view.lorentz == plot.view.lorentz


def test_mosaic_tiles_and_grey_scale(tmp):
    images = np.arange(24.0).reshape(4, 6)  # a 2 x 2 grid of 2 x 3 images, one per row
    tiled = latent_mosaic.tile(images, 2, (2, 3), np.ones(4, dtype=bool))
    np.testing.assert_array_equal(tiled[:2, 3:], [[6, 7, 8], [9, 10, 11]])
    gap = latent_mosaic.tile(images[:3], 2, (2, 3), np.array([True, True, False, True]))
    assert np.isnan(gap[2:, :3]).all() and gap[2, 3] == 12.0, "a grid point outside the disk is a blank tile"
    data = os.path.join(tmp, "range.h5")
    values = np.zeros((latent_mosaic.ROWS_PER_READ + 10, 3))
    values[latent_mosaic.ROWS_PER_READ + 5, 1], values[3, 2] = 7.5, -2.0  # extremes in different blocks
    with h5py.File(data, "w") as f:
        f["/Y"] = values
    assert latent_mosaic.data_range(data, "/Y") == (-2.0, 7.5)
    view = latent_mosaic.grid_view(gplvm_run.load_run(os.path.join(tmp, "run.h5")))
    fig = latent_mosaic.mosaic_figure(tiled, view, (-2.0, 7.5), "t")
    image = fig.axes[0].get_images()[0]
    assert image.get_clim() == (-2.0, 7.5), "black and white are the data's minimum and maximum"
    assert tuple(image.get_extent()) == view.box, "the mosaic lies on the latent axes"


def test_mosaic_end_to_end(tmp):
    def mosaic(*args):
        return subprocess.run([sys.executable, os.path.join(TOOLS, "latent_mosaic.py"), "run.h5", *args,
                               "--gplvm", GPLVM], cwd=tmp, capture_output=True, text=True, timeout=300)

    result = mosaic("--output", "mosaic.png", "--grid", "5")
    assert result.returncode == 0, result.stderr
    with open(os.path.join(tmp, "mosaic.png"), "rb") as f:
        assert f.read(8) == PNG_SIGNATURE
    result = mosaic("--output", "bad.png", "--image-shape", "3x5")
    assert result.returncode == 2 and "image shape" in result.stderr, result.stderr
    result = mosaic("--output", "bad.png", "--data", "absent.h5")
    assert result.returncode == 2 and "absent.h5" in result.stderr, result.stderr
    assert not os.path.exists(os.path.join(tmp, "bad.png"))


def main():
    tests = [
        test_variance_is_low_at_the_latents_and_high_away_from_them,
        test_geometry_background_is_the_log_magnification_on_its_grid,
        test_lorentz_background_on_the_poincare_disk,
        test_plot_run_writes_the_background_plot,
        test_mosaic_decodes_the_view_plot_run_draws,
        test_mosaic_tiles_and_grey_scale,
        test_mosaic_end_to_end,
    ]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        train_runs(tmp)
        plot_run.import_matplotlib()
        for test in tests:
            try:
                test(tmp)
                print(f"ok    {test.__name__}")
            except AssertionError as exc:
                failures += 1
                print(f"FAIL  {test.__name__}: {exc}")
    print(f"{failures} failure(s)" if failures else "all latent plot tests passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

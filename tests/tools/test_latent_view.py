#!/usr/bin/python3
"""tools/latent_view.py: the latent plane tools/plot_run.py draws and tools/latent_mosaic.py decodes.

Plain asserts, no pytest: run with /usr/bin/python3 tests/tools/test_latent_view.py; exits non-zero on failure.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ left in tools/
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools"))
import latent_view  # noqa: E402


def test_dims_follow_the_smallest_lengthscales():
    assert latent_view.plot_dims([2.0, 0.9, 5.0, 0.1], 4) == (3, 1)
    assert latent_view.plot_dims([1.0, 1.0, 1.0], 3) == (0, 1)  # ties to the lower index
    assert latent_view.plot_dims(None, 4) == (0, 1)


def test_view_is_square_and_holds_every_point():
    rng = np.random.default_rng(0)
    latents = rng.standard_normal((200, 3)) * [4.0, 1.0, 0.5] + [10.0, -3.0, 0.0]
    view = latent_view.view_of(latents, (0, 1))
    xmin, xmax, ymin, ymax = view.box
    assert np.isclose(xmax - xmin, ymax - ymin), view.box
    assert latents[:, 0].min() > xmin and latents[:, 0].max() < xmax
    assert latents[:, 1].min() > ymin and latents[:, 1].max() < ymax
    assert np.allclose(view.centre, np.median(latents, axis=0))
    assert view.labels == ("latent 0", "latent 1")


def test_grid_is_row_major_from_the_top_with_the_other_dims_at_the_median():
    latents = np.array([[0.0, 0.0, 5.0], [1.0, 1.0, 7.0], [0.5, 0.2, 6.0]])
    view = latent_view.view_of(latents, (1, 0))
    points, inside = latent_view.grid(view, 3)
    xmin, xmax, ymin, ymax = view.box
    assert points.shape == (9, 3) and inside.all()
    assert np.allclose(points[:3, 1], [xmin, (xmin + xmax) / 2, xmax]), "a row runs left to right along dims[0]"
    assert np.allclose(points[::3, 0], [ymax, (ymin + ymax) / 2, ymin]), "rows run from the top down along dims[1]"
    assert np.allclose(points[:, 2], 6.0), "the third dimension is held at its median"


def test_poincare_and_lorentz_are_inverse_and_the_grid_stays_inside_the_disk():
    rng = np.random.default_rng(1)
    radius, angle = np.sqrt(rng.uniform(0, 0.9, 50)), rng.uniform(0, 2 * np.pi, 50)
    poincare = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    lorentz = latent_view.lorentz_from_poincare(poincare)
    minkowski = -lorentz[:, 0] ** 2 + np.sum(lorentz[:, 1:] ** 2, axis=1)
    assert np.allclose(minkowski, -1.0), "points of the hyperboloid: <x, x>_L = -1"
    assert np.allclose(latent_view.poincare_from_lorentz(lorentz), poincare)
    view = latent_view.view_of(poincare, (0, 1), lorentz=True)
    assert view.box == (-1.05, 1.05, -1.05, 1.05) and view.labels == ("Poincare 0", "Poincare 1")
    points, inside = latent_view.grid(view, 21)
    assert points.shape == (inside.sum(), 3) and 0 < inside.sum() < 21 * 21, "corners outside the disk are left out"
    assert np.allclose(-points[:, 0] ** 2 + np.sum(points[:, 1:] ** 2, axis=1), -1.0)


def main():
    tests = [
        test_dims_follow_the_smallest_lengthscales,
        test_view_is_square_and_holds_every_point,
        test_grid_is_row_major_from_the_top_with_the_other_dims_at_the_median,
        test_poincare_and_lorentz_are_inverse_and_the_grid_stays_inside_the_disk,
    ]
    failures = 0
    for test in tests:
        try:
            test()
            print(f"ok    {test.__name__}")
        except AssertionError as exc:
            failures += 1
            print(f"FAIL  {test.__name__}: {exc}")
    print(f"{failures} failure(s)" if failures else "all latent_view.py tests passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

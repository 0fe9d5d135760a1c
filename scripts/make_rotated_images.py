#!/usr/bin/python3
"""A real image set of rotated objects, the layout of COIL-20 on scikit-learn's digits.

Each object is one 8 x 8 digit of sklearn.datasets.load_digits, upsampled (cubic spline) to
--side x --side pixels and rotated about its centre in --step-degree steps through a full turn
(72 rotations at the default 5 degrees), as COIL-20 photographs each object on a turntable every
5 degrees. Rows of one object are consecutive and in rotation order, so the generating graph is one
cycle per object (gplvm symmetry --objects labels, or --cycle-length 72).

Written as gplvm generate and gplvm import lay data out:
  /Y            N x side^2 float64, pixel intensities in [0, 1] (row-major images)
  /labels       N int64, the object's id 0 .. objects - 1
  /latent_true  N x 2 float64, (cos, sin) of the rotation angle
  root attribute "generator": how the file was made

    /usr/bin/python3 scripts/make_rotated_images.py --objects 20 --output rotated_digits.h5
"""
import argparse
import sys

import h5py
import numpy as np
from scipy import ndimage
from sklearn.datasets import load_digits


def rotated_object(image, side, step_degrees):
    """All rotations of one upsampled image, in angle order: (turns x side^2)."""
    big = ndimage.zoom(image.astype(np.float64), side / image.shape[0], order=3)
    big = np.clip(big, 0.0, None)
    big /= big.max()
    turns = int(round(360.0 / step_degrees))
    rows = []
    for k in range(turns):
        # reshape=False keeps side x side; the corners the rotation leaves empty are 0 (background).
        r = ndimage.rotate(big, k * step_degrees, reshape=False, order=1, mode="constant", cval=0.0)
        rows.append(np.clip(r, 0.0, 1.0).ravel())
    return np.array(rows)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--objects", type=int, default=10, help="number of objects (digits), default 10")
    p.add_argument("--side", type=int, default=24, help="image side in pixels after upsampling, default 24")
    p.add_argument("--step-degrees", type=float, default=5.0, help="rotation step, default 5 (72 rotations)")
    p.add_argument("--first", type=int, default=0, help="index of the first digit image used, default 0")
    p.add_argument("--output", required=True, help="HDF5 file to write (refused if it exists)")
    a = p.parse_args()
    if a.objects < 1 or a.side < 8 or not 0 < a.step_degrees <= 120:
        sys.exit("make_rotated_images: need --objects >= 1, --side >= 8, 0 < --step-degrees <= 120")
    if abs(360.0 / a.step_degrees - round(360.0 / a.step_degrees)) > 1e-9:
        sys.exit("make_rotated_images: --step-degrees must divide 360")
    digits = load_digits().images
    if a.first < 0 or a.first + a.objects > len(digits):
        sys.exit(f"make_rotated_images: digits {a.first} .. {a.first + a.objects - 1} are not all among {len(digits)}")
    blocks = [rotated_object(digits[a.first + o], a.side, a.step_degrees) for o in range(a.objects)]
    turns = blocks[0].shape[0]
    Y = np.vstack(blocks)
    labels = np.repeat(np.arange(a.objects, dtype=np.int64), turns)
    angle = np.tile(np.deg2rad(a.step_degrees * np.arange(turns)), a.objects)
    try:
        f = h5py.File(a.output, "w-")
    except (FileExistsError, OSError) as e:
        sys.exit(f"make_rotated_images: cannot create {a.output}: {e}")
    with f:
        f["/Y"] = Y
        f["/labels"] = labels
        f["/latent_true"] = np.column_stack([np.cos(angle), np.sin(angle)])
        f.attrs["generator"] = (f"rotated_digits: objects={a.objects} first={a.first} side={a.side} "
                                f"step_degrees={a.step_degrees} (sklearn load_digits, scipy.ndimage.rotate)")
    print(f"wrote {a.output}: {Y.shape[0]} rows ({a.objects} objects x {turns} rotations) x {Y.shape[1]} pixels")


if __name__ == "__main__":
    main()

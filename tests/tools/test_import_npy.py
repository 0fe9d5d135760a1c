#!/usr/bin/python3
"""gplvm import of .npy files NumPy wrote in Fortran order (np.asfortranarray: 'fortran_order': True in the header).

Each array is saved twice by numpy.save, C-ordered and Fortran-ordered, and imported from both files: the two
HDF5 data sets must be the same to the bit, and equal to the array in C order with its trailing dimensions
flattened (what NumPy's reshape(N, -1) gives). Covered: float64 and float32 matrices, uint8 images
(N x rows x cols), and pre-shapes of Kendall's shape space (N x k x 2) imported with --output-space, whose
stored point shape must survive too.

Usage: test_import_npy.py GPLVM_EXECUTABLE; plain asserts, exits non-zero on failure.
"""

import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

GPLVM = sys.argv[1]


def gplvm(tmp, *args):
    return subprocess.run([GPLVM, *args], cwd=tmp, capture_output=True, text=True, timeout=120)


def fortran_header(path):
    with open(path, "rb") as f:
        version = np.lib.format.read_magic(f)
        _, fortran_order, _ = np.lib.format._read_array_header(f, version)
    return fortran_order


def import_both(tmp, name, array, *options):
    """Imports C- and Fortran-ordered copies of `array`; returns the two /Y datasets (and their files)."""
    c_file, f_file = f"{name}_c.npy", f"{name}_f.npy"
    np.save(os.path.join(tmp, c_file), np.ascontiguousarray(array))
    np.save(os.path.join(tmp, f_file), np.asfortranarray(array))
    assert not fortran_header(os.path.join(tmp, c_file)) and fortran_header(os.path.join(tmp, f_file))
    datasets = []
    for source in (c_file, f_file):
        out = source.replace(".npy", ".h5")
        r = gplvm(tmp, "import", "--input", source, "--output", out, *options)
        assert r.returncode == 0, r.stderr
        with h5py.File(os.path.join(tmp, out), "r") as f:
            datasets.append((f["/Y"][()], dict(f["/Y"].attrs)))
    return datasets


def test_fortran_order_imports_as_c_order(tmp):
    rng = np.random.default_rng(1)
    cases = {"f8": rng.standard_normal((7, 5)),
             "f4": rng.standard_normal((6, 4)).astype(np.float32),
             "u1": rng.integers(0, 256, size=(5, 3, 4), dtype=np.uint8)}
    for name, array in cases.items():
        (c, _), (f, _) = import_both(tmp, name, array)
        assert c.dtype == f.dtype == np.float64
        assert c.tobytes() == f.tobytes(), name  # bit for bit
        np.testing.assert_array_equal(f, array.reshape(len(array), -1).astype(np.float64), err_msg=name)


def test_fortran_order_manifold_points(tmp):
    rng = np.random.default_rng(2)
    shapes = rng.standard_normal((6, 5, 2))
    shapes -= shapes.mean(axis=1, keepdims=True)
    shapes /= np.linalg.norm(shapes, axis=(1, 2), keepdims=True)  # pre-shapes: centred, unit size
    (c, c_attrs), (f, f_attrs) = import_both(tmp, "kendall", shapes, "--output-space", "kendall")
    assert c.shape == f.shape == (6, 5, 2), (c.shape, f.shape)
    assert c.tobytes() == f.tobytes()
    assert c_attrs == f_attrs
    np.testing.assert_array_equal(f, shapes)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for test in (test_fortran_order_imports_as_c_order, test_fortran_order_manifold_points):
            test(tmp)
            print(f"ok {test.__name__}")


if __name__ == "__main__":
    main()

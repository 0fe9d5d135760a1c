#!/usr/bin/python3
"""Compare the parameters of gplvm run files bit for bit (docs/reliability.md, "Reproducibility
across rank counts").

    /usr/bin/python3 scripts/compare_runs_bitwise.py reference.h5 other.h5 [more.h5 ...]

Every dataset under /params and /latent of each further file is compared with the reference's, as
raw bytes (so -0.0 differs from 0.0 and a NaN equals only the same NaN), and so is the objective
column of /train/curve (its wall-time column is left out). Prints one line per file: the number of
values compared, how many differ and the largest relative difference. Exit code 0 when every file
equals the reference, 1 when one differs, 2 for a missing or malformed input.
"""

import sys

import numpy as np

try:
    import h5py
except ImportError as exc:  # pragma: no cover - depends on the host
    sys.exit(f"{exc}; install the Debian package python3-h5py and run with /usr/bin/python3")

COMPARED_GROUPS = ("params", "latent")
CURVE = "train/curve"
CURVE_OBJECTIVE_COLUMN = 2


def parameter_arrays(path):
    """{dataset name: array} of every compared dataset in the run file at path."""
    arrays = {}
    try:
        with h5py.File(path, "r") as h5:
            for group in COMPARED_GROUPS:
                if group in h5:
                    h5[group].visititems(
                        lambda name, obj, g=group: arrays.__setitem__(f"{g}/{name}", np.atleast_1d(obj[()]))
                        if isinstance(obj, h5py.Dataset) else None)
            if CURVE in h5:
                arrays[f"{CURVE} objective"] = np.asarray(h5[CURVE][:, CURVE_OBJECTIVE_COLUMN])
    except OSError as exc:
        print(f"cannot read run file {path}: {exc}", file=sys.stderr)
        sys.exit(2)
    if not arrays:
        print(f"{path}: no /params or /latent datasets", file=sys.stderr)
        sys.exit(2)
    return arrays


def differences(reference, other):
    """(values compared, values whose bits differ, largest relative difference)."""
    compared = differing = 0
    largest = 0.0
    for name, ref in reference.items():
        if name not in other or other[name].shape != ref.shape or other[name].dtype != ref.dtype:
            return None, name
        mine = other[name]
        compared += ref.size
        as_bytes = lambda a: np.ascontiguousarray(a).reshape(-1).view(np.uint8).reshape(a.size, -1)
        unequal = (as_bytes(ref) != as_bytes(mine)).any(axis=1)
        differing += int(unequal.sum())
        if unequal.any():
            a, b = ref.reshape(-1)[unequal].astype(float), mine.reshape(-1)[unequal].astype(float)
            scale = np.maximum(np.abs(a), np.finfo(float).tiny)
            largest = max(largest, float(np.max(np.abs(a - b) / scale)))
    return (compared, differing, largest), None


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    reference = parameter_arrays(argv[1])
    status = 0
    for path in argv[2:]:
        result, missing = differences(reference, parameter_arrays(path))
        if result is None:
            print(f"{path}: dataset '{missing}' missing or of another shape than in {argv[1]}", file=sys.stderr)
            return 2
        compared, differing, largest = result
        verdict = "bitwise equal" if differing == 0 else "DIFFERENT"
        print(f"{path}: {compared} values, {differing} differ (largest relative difference {largest:.3g}): {verdict}")
        status = status or int(differing > 0)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))

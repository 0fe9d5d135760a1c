#!/usr/bin/python3
"""scikit-learn's handwritten digits (1,797 8 x 8 images, 10 classes) as a CSV file for `gplvm import`.

One row per image: the 64 pixel intensities (0-16) in columns pixel0 .. pixel63, then its digit in
the column `label`. The data ship with scikit-learn (python3-sklearn), so nothing is downloaded.

    /usr/bin/python3 scripts/digits_data.py --output digits.csv
    gplvm import --input digits.csv --csv-label-column label --scale 1/16 --output digits.h5

--rows START:STOP writes those rows only (Python slice syntax), e.g. 0:1500 and 1500: for a training
and a test file. Exit status: 0 on success, 2 for bad arguments or an output that exists.
"""

import argparse
import os
import sys

import numpy as np
from sklearn.datasets import load_digits


def row_range(text):
    """START:STOP (either may be empty) as a slice."""
    start, colon, stop = text.partition(":")
    try:
        if not colon:
            raise ValueError
        return slice(int(start) if start else None, int(stop) if stop else None)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not START:STOP")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", required=True, help="CSV file to write (refused if it exists)")
    parser.add_argument("--rows", type=row_range, default=slice(None), help="rows to write, START:STOP (default all)")
    return parser.parse_args(argv)


def write_csv(path, pixels, labels):
    """Written under a temporary name and renamed, so a failure leaves no partial file."""
    header = ",".join([f"pixel{i}" for i in range(pixels.shape[1])] + ["label"])
    temporary = f"{path}.tmp-{os.getpid()}"
    np.savetxt(temporary, np.column_stack([pixels, labels]), fmt="%d", delimiter=",", header=header, comments="")
    os.replace(temporary, path)


def main(argv=None):
    args = parse_args(argv)
    if os.path.exists(args.output):
        sys.stderr.write(f"digits_data.py: error: {args.output} exists; remove it first\n")
        return 2
    digits = load_digits()
    pixels, labels = digits.data[args.rows].astype(int), digits.target[args.rows]
    if labels.size == 0:
        sys.stderr.write("digits_data.py: error: --rows selects no rows (there are 1797)\n")
        return 2
    write_csv(args.output, pixels, labels)
    print(f"wrote {args.output}: {labels.size} digits x {pixels.shape[1]} pixels and their labels")
    return 0


if __name__ == "__main__":
    sys.exit(main())

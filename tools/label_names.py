"""Names for integer class labels, as the data file gives them.

A data file may name its classes: the attribute `names` of its labels dataset (`/labels`), one string
per label value 0 .. K-1 (docs/run-file.md, "Data files"); gplvm's commands copy the labels into
their outputs without it, so the names are looked up in the file itself, in the data file given
with --data, and in the files the input names as its data (`data_file` of run files and encode
outputs, `test` of evaluate outputs). Fashion-MNIST's IDX files carry no names: --class-names
fashion_mnist supplies them.
"""

import os

import h5py
import numpy as np

FASHION_MNIST = (
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"
)
NAMES_ATTRIBUTE = "names"
DATA_ATTRIBUTES = ("data_file", "test")  # attributes of gplvm's outputs that name the data they describe


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def names_in(path, labels_path):
    """The `names` attribute of `labels_path` in the file at `path`, or None (also for an unreadable file)."""
    try:
        with h5py.File(path, "r") as h5:
            dataset = h5.get(labels_path)
            names = dataset.attrs.get(NAMES_ATTRIBUTE) if isinstance(dataset, h5py.Dataset) else None
    except OSError:
        return None
    if names is None:
        return None
    return tuple(text(n) for n in np.atleast_1d(names))


def candidate_files(h5, data_path):
    """The files that may name the classes, in order: --data, the input, the data files it names."""
    files = [data_path] if data_path else []
    files.append(h5.filename)
    for attribute in DATA_ATTRIBUTES:
        value = h5.attrs.get(attribute)
        if value is not None and os.path.isfile(text(value)):
            files.append(text(value))
    return files


def class_names(h5, labels, choice, data_path=None, labels_path="/labels"):
    """Names indexed by label value for the legend, or None: `choice` is auto (the data's attribute), none or
    fashion_mnist. Names that do not cover every label (or non-integer labels) are not used."""
    if labels is None or choice == "none":
        return None
    if choice == "fashion_mnist":
        names = FASHION_MNIST
    else:
        names = next(filter(None, (names_in(f, labels_path) for f in candidate_files(h5, data_path))), None)
    if names is None or not np.issubdtype(labels.dtype, np.integer):
        return None
    if labels.min() < 0 or labels.max() >= len(names):
        return None
    return names

"""The small input files a documentation example may ask for (`files:` in its marker), by the name it uses.

Each is made in the example's working directory, from scikit-learn's digits or `gplvm generate`, small
enough that the example runs in seconds: what it stands for is in CATALOGUE. A file made once serves
every later block of the same page.
"""

import gzip
import os
import subprocess
import sys

import numpy as np

TRAIN_ROWS, TEST_ROWS = "0:600", "600:800"
IMAGE_ROWS = {"train": slice(0, 1100), "t10k": slice(1100, 1300)}  # 1,100: more than the demo's batch of 1,024
SMALL_CONFIG = """# A small configuration for the documentation's examples: SAS on 600 digits.
[data]
path = "train.h5"

[sas]
batch_size = 128
active_size = 64
"""
SWEEP_GRID = """[train]
seed = [0, 1]
[model]
noise_variance = [0.1, 0.5]
"""


class UnknownFixture(Exception):
    """A marker asks for a file the catalogue does not have."""


class Fixtures:
    """Makes the catalogue's files in `workdir` with the gplvm binary `gplvm` and the scripts under `source`."""

    def __init__(self, workdir, gplvm, source):
        self.workdir, self.gplvm, self.source = workdir, gplvm, source
        self.catalogue = {
            "train.h5": lambda path: self.digits(path, TRAIN_ROWS),
            "test.h5": lambda path: self.digits(path, TEST_ROWS),
            # Names the pages give data sets of their own (Fashion-MNIST's 50 principal components, ...).
            **{name: lambda path: self.digits(path, TRAIN_ROWS) for name in ("data.h5", "small.h5", "fmnist.h5",
                                                                              "fmnist50.h5")},
            "my.toml": lambda path: self.text(path, SMALL_CONFIG, needs=["train.h5"]),
            "base.toml": lambda path: self.text(path, SMALL_CONFIG, needs=["train.h5"]),
            "grid.toml": lambda path: self.text(path, SWEEP_GRID),
            "run.h5": self.trained_run,
            "test_latents.h5": self.encoded_test,
            "swiss_roll.h5": lambda path: self.run_gplvm("generate", "--kind", "swiss_roll", "--n", "400",
                                                         "--output", path),
            **{f"{split}-images-idx3-ubyte.gz": lambda path, split=split: write_idx(path, images(split)[0])
               for split in IMAGE_ROWS},
            **{f"{split}-labels-idx1-ubyte.gz": lambda path, split=split: write_idx(path, images(split)[1])
               for split in IMAGE_ROWS},
            "results/demo/fashion_mnist_train.h5": lambda path: self.imported_images(path, "train"),
            "results/demo/fashion_mnist_test.h5": lambda path: self.imported_images(path, "t10k"),
            "results/demo/run.h5": self.demo_run,
            "tensors.npy": self.spd_tensors,
        }

    def make(self, names, where):
        for name in names:
            if name not in self.catalogue:
                raise UnknownFixture(f"{where}: 'files: {name}' is not a file the test can make "
                               f"(tests/docs/example_fixtures.py has: {', '.join(sorted(self.catalogue))})")
            self.require(name)

    def require(self, name):
        path = os.path.join(self.workdir, name)
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            self.catalogue[name](path)

    def run_gplvm(self, *args):
        result = subprocess.run([self.gplvm, *args], cwd=self.workdir, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"making an example's input: gplvm {' '.join(args)} exited with "
                               f"{result.returncode}: {result.stderr.strip()}")

    def text(self, path, content, needs=()):
        for name in needs:
            self.require(name)
        with open(path, "w") as f:
            f.write(content)

    def digits(self, path, rows):
        """Digits rows through scripts/digits_data.py and gplvm import, as the getting-started page makes them."""
        csv = path + ".csv"
        script = os.path.join(self.source, "scripts", "digits_data.py")
        subprocess.run([sys.executable, script, "--output", csv, "--rows", rows], check=True, capture_output=True)
        self.run_gplvm("import", "--input", csv, "--csv-label-column", "label", "--scale", "1/16", "--output", path)
        os.remove(csv)

    def trained_run(self, path):
        """SAS with an encoder on train.h5, a few steps: enough for the commands that read a run."""
        self.require("train.h5")
        self.run_gplvm("train", "--data.path=train.h5", f"--output.path={path}", "--sas.batch_size=128",
                       "--sas.active_size=64", "--train.max_steps=5")

    def encoded_test(self, path):
        self.require("run.h5")
        self.require("test.h5")
        self.run_gplvm("encode", "--run", "run.h5", "--data", "test.h5", "--output", path)

    def imported_images(self, path, split):
        """The IDX files imported as `make demo` imports Fashion-MNIST's."""
        names = [f"{split}-images-idx3-ubyte.gz", f"{split}-labels-idx1-ubyte.gz"]
        for name in names:
            self.require(name)
        self.run_gplvm("import", "--input", names[0], "--labels", names[1], "--scale", "1/255", "--float32",
                       "--output", path)

    def demo_run(self, path):
        """The demo's configuration for 3 steps: what `make demo` leaves in results/demo/run.h5."""
        self.require("results/demo/fashion_mnist_train.h5")
        self.run_gplvm("train", "--config", "configs/demo_fashion_mnist.toml", f"--output.path={path}",
                       "--train.max_steps=3")

    def spd_tensors(self, path):
        """50 random 3 x 3 SPD matrices, A Aᵀ + I."""
        a = np.random.default_rng(0).standard_normal((50, 3, 3))
        np.save(path, a @ a.transpose(0, 2, 1) + np.eye(3))


def images(split):
    """(images, labels) of digits drawn as 28 x 28 bytes (each pixel 3 x 3, centred): Fashion-MNIST's shape."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    rows = IMAGE_ROWS[split]
    small = digits.images[rows] * (255.0 / 16.0)
    big = np.zeros((small.shape[0], 28, 28), dtype=np.uint8)
    big[:, 2:26, 2:26] = np.kron(small, np.ones((3, 3))).round().astype(np.uint8)
    return big, digits.target[rows].astype(np.uint8)


def write_idx(path, array):
    """The IDX format of MNIST for unsigned bytes: magic (0, 0, 8, rank), big-endian sizes, the bytes; gzipped."""
    header = bytes([0, 0, 0x08, array.ndim]) + b"".join(int(s).to_bytes(4, "big") for s in array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + np.ascontiguousarray(array).tobytes())

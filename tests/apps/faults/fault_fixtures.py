"""Input files for the fault and bad-input suite, written once per run into a read-only folder.

Good files (a data set, test data, a config, trained runs) let each case break exactly one thing;
bad files (NaN data, a 1-D /Y, a text file named .h5, ragged CSV, short NPY, ...) are the culprits.
"""
import os
import struct
import subprocess

import h5py
import numpy as np

ROWS, DIM = 64, 5

GOOD_CONFIG = """[data]
path = "{data}"
[model]
encoder_hidden = [8, 4]
lengthscale = 1.0
[sas]
batch_size = 16
active_size = 5
[train]
epochs = 100
max_steps = {steps}
learning_rate = 0.01
progress_seconds = 1000
[output]
path = "{output}"
"""


def write_data(path, y, labels=None, dataset="/Y"):
    with h5py.File(path, "w") as f:
        f.create_dataset(dataset, data=y)
        if labels is not None:
            f.create_dataset("/labels", data=np.asarray(labels, dtype=np.int64))


def write_npy_claiming(path, shape, values):
    """An NPY file whose header promises `shape` but holds only `values` (float64)."""
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }" % (tuple(shape),)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(np.asarray(values, dtype="<f8").tobytes())


def write_idx_claiming(path, shape, payload_bytes):
    """An unsigned-byte IDX file whose header promises `shape` but holds `payload_bytes` bytes."""
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 0x08, len(shape)]))
        for n in shape:
            f.write(struct.pack(">I", n))
        f.write(bytes(payload_bytes))


def damage_object_header(path, object_path):
    """Overwrites the start of one object's header (its version and message count) with 0xFF bytes:
    the file still opens, and that one object cannot be read."""
    with h5py.File(path, "r") as f:
        address = h5py.h5o.get_info(f[object_path].id).addr
    with open(path, "r+b") as f:
        f.seek(address)
        f.write(b"\xff" * 16)


def damaged_copy(source, target, object_path):
    with open(source, "rb") as f, open(target, "wb") as g:
        g.write(f.read())
    damage_object_header(target, object_path)


def write_text(path, text):
    with open(path, "w") as f:
        f.write(text)


def make_data_files(d):
    rng = np.random.default_rng(3)
    y = rng.standard_normal((ROWS, DIM))
    labels = np.arange(ROWS) % 3
    write_data(f"{d}/data.h5", y, labels)
    write_data(f"{d}/test.h5", rng.standard_normal((20, DIM)), np.arange(20) % 3)
    write_data(f"{d}/d3.h5", rng.standard_normal((20, 3)), np.arange(20) % 3)
    y_nan = y.copy()
    y_nan[41, 2] = np.nan  # in the second rank's half at 2 ranks
    write_data(f"{d}/nan.h5", y_nan)
    y_inf = y.copy()
    y_inf[3, 0] = np.inf
    write_data(f"{d}/inf.h5", y_inf)
    write_data(f"{d}/no_y.h5", y, dataset="/X")
    write_data(f"{d}/rank1.h5", y[:, 0])
    write_data(f"{d}/rank3.h5", y.reshape(ROWS, DIM, 1))
    write_data(f"{d}/empty.h5", np.zeros((0, DIM)))
    write_text(f"{d}/not_hdf5.h5", "this is a text file, not HDF5\n")
    # Latents too large for their distances in double precision (x_0 alone would pass as points
    # of the hyperboloid once its square overflows).
    huge = np.zeros((ROWS, 3))
    huge[:, 0] = 1e300 * (1 + np.arange(ROWS) / ROWS)
    write_data(f"{d}/huge_latents.h5", huge, dataset="/latent/mean")
    damaged_copy(f"{d}/data.h5", f"{d}/damaged_y.h5", "/Y")
    damaged_copy(f"{d}/data.h5", f"{d}/damaged_labels.h5", "/labels")
    with open(f"{d}/data.h5", "rb") as f:  # the first half of a good file
        head = f.read()
    with open(f"{d}/truncated.h5", "wb") as f:
        f.write(head[: len(head) // 2])


def make_import_files(d):
    write_text(f"{d}/good.csv", "a,b,c\n1,2,3\n4,5,6\n")
    write_text(f"{d}/ragged.csv", "a,b,c\n1,2,3\n4,5\n7,8,9\n")
    write_text(f"{d}/non_numeric.csv", "1,2,3\n4,five,6\n")
    write_text(f"{d}/nan_cell.csv", "1,2,3\n4,nan,6\n")
    write_text(f"{d}/empty.csv", "")
    write_text(f"{d}/header_only.csv", "a,b,c\n")
    write_npy_claiming(f"{d}/short.npy", (10, 5), np.zeros(30))
    write_idx_claiming(f"{d}/short.idx", (10, 4, 4), 100)
    write_idx_claiming(f"{d}/zero_rows.idx", (0, 4, 4), 0)
    np.save(f"{d}/vector.npy", np.arange(6.0))
    # Four landmarks in 3-D per row: 12 numbers, as many as six planar landmarks.
    np.save(f"{d}/landmarks3d.npy", np.random.default_rng(5).standard_normal((10, 4, 3)))


def make_configs(d):
    good = GOOD_CONFIG.format(data=f"{d}/data.h5", steps=4, output="run.h5")
    write_text(f"{d}/config.toml", good)
    # The config as a trained run stores it, pointing at data that later vanish.
    write_data(f"{d}/gone.h5", np.zeros((ROWS, DIM)))


def train(gplvm, d, name, extra, env):
    config = GOOD_CONFIG.format(data=f"{d}/data.h5", steps=4, output=f"{d}/{name}.h5")
    write_text(f"{d}/{name}.toml", config)
    command = [gplvm, "train", "--config", f"{d}/{name}.toml"] + extra
    done = subprocess.run(command, cwd=d, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"fixture training {name} failed ({done.returncode}): {done.stderr}")
    os.remove(f"{d}/{name}.toml")


def make_runs(gplvm, d, env):
    """Trained runs: amortised SAS (encode, evaluate, exact), free latents (no encoder), VAE (no GP)."""
    train(gplvm, d, "run", [], env)
    train(gplvm, d, "free_run", ["--model.latents=free"], env)
    train(gplvm, d, "vae_run", ["--model.kind=vae", "--sas.batch_size=32"], env)
    # Runs and a checkpoint with one damaged object each.
    damaged_copy(f"{d}/run.h5", f"{d}/damaged_shared_run.h5", "/params/shared")
    damaged_copy(f"{d}/run.h5", f"{d}/damaged_latent_run.h5", "/latent/mean")
    checkpoint = sorted(os.listdir(f"{d}/run.h5.checkpoints"))[-1]
    os.rename(f"{d}/run.h5.checkpoints/{checkpoint}", f"{d}/checkpoint.h5")
    damaged_copy(f"{d}/checkpoint.h5", f"{d}/damaged_checkpoint.h5", "/state/shared")
    # A run whose training data have since been removed.
    train(gplvm, d, "orphan_run", [f"--data.path={d}/gone.h5"], env)
    os.remove(f"{d}/gone.h5")


def make_all(gplvm, d, env, with_runs):
    make_data_files(d)
    make_import_files(d)
    make_configs(d)
    if with_runs:
        make_runs(gplvm, d, env)
    os.mkdir(f"{d}/a_directory.h5")

#!/usr/bin/python3
"""The paper-table drivers (scripts/reproduce/) end to end on a tiny configuration: two cells (SAS and Bayesian SAS
at one A), two seeds, a few steps; then Table 4.2's extra models; then resume after a lost result, after a killed
training (checkpoints only) and the refusal of a cell folder that holds another run.

Usage: test_reproduce.py GPLVM (the drivers start it under mpirun at 2 ranks). Plain asserts; exits non-zero on failure.
"""

import glob
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVERS = os.path.join(REPO, "scripts", "reproduce")


def make_data(gplvm, folder):
    """One labelled synthetic set, split by rows into training and test sets (same labels on both sides)."""
    whole = os.path.join(folder, "whole.h5")
    subprocess.run([gplvm, "generate", "--kind", "tree", "--n", "450", "--d", "12", "--seed", "4", "--output", whole],
                   check=True, capture_output=True)
    with h5py.File(whole, "r") as f:
        y, labels = f["/Y"][()], f["/labels"][()]
    order = np.random.default_rng(0).permutation(len(y))
    paths = {}
    for name, rows in (("train", order[:300]), ("test", order[300:])):
        paths[name] = os.path.join(folder, f"{name}.h5")
        with h5py.File(paths[name], "w") as f:
            f["/Y"] = y[np.sort(rows)]
            f["/labels"] = labels[np.sort(rows)]
    return paths


def driver(name, out, data, gplvm, *extra, check=True):
    command = [sys.executable, os.path.join(DRIVERS, name), *extra, "--out", out, "--gplvm", gplvm, "--train-data",
               data["train"], "--test-data", data["test"], "--seeds", "2", "--active", "8", "--ranks", "2",
               "--condition", "0", "--set", "sas.batch_size=32", "--set", "train.max_steps=12",
               "--set", "train.checkpoint_every=4", "--set", "model.encoder_hidden=[8]"]
    if name == "table_4_2.py":
        command += ["--inducing", "6"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if check:
        assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout}\n{done.stderr}"
    return done


def check_cell_against_numpy(cell_dir, data):
    """The recorded metrics equal the ones recomputed from the evaluation file and the test set."""
    result = json.load(open(os.path.join(cell_dir, "result.json")))
    with h5py.File(os.path.join(cell_dir, "eval.h5"), "r") as f:
        mean, variance = f["/predictive/mean"][()], f["/predictive/variance"][()]
    with h5py.File(data["test"], "r") as f:
        y = f["/Y"][()]
    residual = y - mean
    assert np.isclose(result["evaluate"]["rmse"], np.sqrt(np.mean(residual**2)), rtol=1e-10)
    assert np.isclose(result["evaluate"]["mae"], np.mean(np.abs(residual)), rtol=1e-10)
    nlpd = 0.5 * np.log(2 * np.pi) + 0.5 * np.mean(np.log(variance) + residual**2 / variance)
    assert np.isclose(result["evaluate"]["nlpd"], nlpd, rtol=1e-8)
    assert result["train"]["steps"] == 12 and result["ranks"] == 2
    assert 0.0 <= result["knn"]["knn1_fit_on_train"] <= 1.0 and 0.0 <= result["knn"]["knn1_fit_on_test_loo"] <= 1.0


def check_study(gplvm, data, out):
    """The N-study on the first 200 rows: exact LMLs at every checkpoint, against a NumPy exact LML at the end."""
    command = [sys.executable, os.path.join(DRIVERS, "study_40k.py"), "run", "--out", out, "--gplvm", gplvm,
               "--train-data", data["train"], "--test-data", data["test"], "--n", "200", "--seeds", "1", "--active",
               "8", "--inducing", "6", "--every", "4", "--snapshots", "3", "--ranks", "2", "--set",
               "sas.batch_size=32", "--set", "train.max_steps=12", "--set", "model.encoder_hidden=[8]"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    series = json.load(open(os.path.join(out, "study_n200.json")))
    assert sorted(s["model"] for s in series) == ["bayesian_gplvm", "bayesian_sas", "sas"], series
    for item in series:
        assert [s["step"] for s in item["snapshots"]] == [4, 8, 12], item["snapshots"]
    sas = next(s for s in series if s["model"] == "sas")
    with h5py.File(os.path.join(out, "cells", sas["cell"], "run.h5"), "r") as f:
        latents = f["/latent/mean"][()]
        variance, lengthscales = f["/params/kernel/variance"][()], f["/params/kernel/lengthscales"][()]
        noise = f["/params/noise_variance"][()]
    with h5py.File(data["train"], "r") as f:
        y = f["/Y"][:200]
    scaled = latents / lengthscales
    squared = np.sum(scaled**2, 1)[:, None] + np.sum(scaled**2, 1)[None, :] - 2 * scaled @ scaled.T
    gram = variance * np.exp(-0.5 * np.maximum(squared, 0)) + noise * np.eye(len(y))
    sign, logdet = np.linalg.slogdet(gram)
    lml = -0.5 * (y.size * np.log(2 * np.pi) + y.shape[1] * logdet + np.sum(y * np.linalg.solve(gram, y)))
    last = max(sas["snapshots"], key=lambda s: s["step"])
    assert sign > 0 and np.isclose(last["exact_lml"], lml, rtol=1e-8), (last, lml)
    for name in ("study_n200.md", "study_n200_sas.png", "study_n200_bayesian.png"):
        assert os.path.isfile(os.path.join(out, name)), name


def check_chosen_checkpoints(folder):
    """The snapshot choice: evenly spaced, the last checkpoint always, so one snapshot is the trained model's."""
    sys.path.insert(0, DRIVERS)
    import study_40k
    checkpoints = os.path.join(folder, "run.h5.checkpoints")
    os.makedirs(checkpoints)
    for step in (100, 200, 300, 400, 500, 600, 650):
        open(os.path.join(checkpoints, f"checkpoint-{step:09d}.h5"), "w").close()
    steps = {count: [study_40k.checkpoint_step(p) for p in study_40k.chosen_checkpoints(folder, count)]
             for count in (1, 2, 3, 7, 9)}
    assert steps[1] == [650] and steps[2] == [100, 650] and steps[3] == [100, 400, 650], steps
    assert steps[7] == steps[9] == [100, 200, 300, 400, 500, 600, 650], steps


def table_rows(path):
    return [line for line in open(path) if line.startswith("| ") and not line.startswith("| model")]


def main():
    gplvm = sys.argv[1]
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    with tempfile.TemporaryDirectory() as folder:
        check_chosen_checkpoints(os.path.join(folder, "chosen"))
        data = make_data(gplvm, folder)
        out = os.path.join(folder, "reproduce")

        first = driver("table_4_1.py", out, data, gplvm, "run")
        assert first.stdout.count("finished in") == 4, first.stdout
        cells = sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "cells", "*")))
        assert cells == ["bayesian_sas_A8_seed0", "bayesian_sas_A8_seed1", "sas_A8_seed0", "sas_A8_seed1"], cells
        for cell in cells:
            check_cell_against_numpy(os.path.join(out, "cells", cell), data)
        rows = table_rows(os.path.join(out, "table_4_1.md"))
        assert len(rows) == 2 and all("(n=2)" in row for row in rows), rows
        assert "Cells finished: 4 of 4" in open(os.path.join(out, "table_4_1.md")).read()

        # Table 4.2 shares the Bayesian SAS cells and trains the Bayesian GPLVM and the VAE.
        second = driver("table_4_2.py", out, data, gplvm, "run")
        assert second.stdout.count("already finished") == 2 and second.stdout.count("finished in") == 5, second.stdout
        table = open(os.path.join(out, "table_4_2.md")).read()
        assert "Cells finished: 7 of 7" in table and table.count("(n=2)") == 6, table
        figure = subprocess.run([sys.executable, os.path.join(REPO, "tools", "plot_reproduction.py"), "latents", out,
                                 "--cells", "sas_A8_seed0=SAS,vae_seed0=VAE,sparse_gplvm_seed0=GPLVM"],
                                capture_output=True, text=True)
        assert figure.returncode == 0 and open(os.path.join(out, "latents.png"), "rb").read(8) == b"\x89PNG\r\n\x1a\n"

        # Resume: a finished cell is not recomputed; a lost evaluation is redone; a killed training (checkpoints,
        # no run file) continues from its newest checkpoint.
        lost_eval = os.path.join(out, "cells", "sas_A8_seed1")
        for name in ("result.json", "eval.json", "eval.h5"):
            os.remove(os.path.join(lost_eval, name))
        killed = os.path.join(out, "cells", "bayesian_sas_A8_seed0")
        for name in ("result.json", "eval.json", "eval.h5", "train.json", "run.h5"):
            os.remove(os.path.join(killed, name))
        checkpoints = sorted(glob.glob(os.path.join(killed, "run.h5.checkpoints", "*.h5")))
        for checkpoint in checkpoints[1:]:
            os.remove(checkpoint)  # keep the oldest (step 8 of 12) only: training resumes there
        resume_step = int(os.path.basename(checkpoints[0]).split("-")[1].split(".")[0])
        assert resume_step < 12, checkpoints
        train_log_before = open(os.path.join(killed, "train.log")).read()
        third = driver("table_4_1.py", out, data, gplvm, "run")
        assert third.stdout.count("already finished") == 2 and third.stdout.count("finished in") == 2, third.stdout
        resumed_log = open(os.path.join(killed, "train.log")).read()[len(train_log_before):]
        assert "resuming from" in resumed_log and f"at step {resume_step}" in resumed_log, resumed_log
        check_cell_against_numpy(killed, data)
        check_cell_against_numpy(lost_eval, data)

        # A cell folder holding another run (other overrides) is refused with exit 2, not overwritten.
        other = subprocess.run([sys.executable, os.path.join(DRIVERS, "table_4_1.py"), "run", "--out", out, "--gplvm",
                                gplvm, "--train-data", data["train"], "--test-data", data["test"], "--seeds", "1",
                                "--active", "8", "--set", "sas.batch_size=40"], capture_output=True, text=True)
        assert other.returncode == 2 and "holds a different run" in other.stderr, other.stderr

        listing = driver("table_4_1.py", out, data, gplvm, "list")
        assert listing.stdout.count("done") == 4, listing.stdout
        check_study(gplvm, data, os.path.join(folder, "study"))
    print("ok")


if __name__ == "__main__":
    main()

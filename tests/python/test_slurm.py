#!/usr/bin/python3
"""launcher="slurm" on a real Slurm: a private one-node cluster on loopback (scripts/slurm/local-cluster.sh,
as root). A sparse GPLVM fitted as a two-task job (train.reproducible) equals the same model fitted here on
one rank, to the bit; its progress lines reach the callback while the job runs; transform runs as a job too.

The cluster is stopped on every exit, and by a watchdog after BUDGET_SECONDS, which also ends any job and
so any `sbatch --wait` still waiting.

usage: /usr/bin/python3 tests/python/test_slurm.py GPLVM_EXECUTABLE   (as root)
"""

import os
import subprocess
import tempfile
import threading

import numpy as np
from common import GPLVM, REPO, digits, run_tests

from gplvm_hpc import SparseGPLVM

LOCAL_CLUSTER = os.path.join(REPO, "scripts", "slurm", "local-cluster.sh")
BUDGET_SECONDS = 150
CONFIG = {"sas.batch_size": 50, "sparse.inducing": 10, "sparse.training": "minibatch", "train.reproducible": True,
          "train.progress_seconds": 0.001}


def cluster(action, directory):
    done = subprocess.run([LOCAL_CLUSTER, action, directory], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"local-cluster.sh {action} exited {done.returncode}:\n{done.stderr}"
    return done.stdout


def test_a_slurm_job_fits_what_one_local_rank_fits(tmp):
    rows = digits(100)
    # Slurm's sockets live under the cluster's folder, whose path must stay short.
    directory = tempfile.mkdtemp(prefix="gps-", dir="/tmp")
    watchdog = threading.Timer(BUDGET_SECONDS, cluster, ("stop", directory))
    try:
        line = cluster("start", directory).strip().splitlines()[-1]
        assert line.startswith("export SLURM_CONF="), line
        os.environ["SLURM_CONF"] = line.split("=", 1)[1]
        watchdog.start()
        progress = []
        job = SparseGPLVM(epochs=2, config=CONFIG, n_ranks=2, launcher="slurm", slurm_options={"time": "00:02:00"},
                          work_dir=tmp, verbose=1, progress=progress.append, executable=GPLVM)
        latents = job.fit_transform(rows)
        here = SparseGPLVM(epochs=2, config=CONFIG, executable=GPLVM).fit(rows)
        assert job.summary_["ranks"] == 2, job.summary_
        assert np.array_equal(latents, here.embedding_), np.abs(latents - here.embedding_).max()
        assert any(line.startswith("epoch ") for line in progress), progress
        assert np.array_equal(job.transform(rows[:20]), here.transform(rows[:20]))
    finally:
        watchdog.cancel()
        cluster("stop", directory)
        subprocess.run(["rm", "-rf", directory], check=False)


if __name__ == "__main__":
    if os.geteuid() != 0:
        raise SystemExit("test_slurm.py starts Slurm's daemons and must run as root")
    run_tests(test_a_slurm_job_fits_what_one_local_rank_fits)

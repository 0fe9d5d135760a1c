#!/usr/bin/python3
"""Every command that reads inputs leaves the inputs' folder exactly as it found it.

The folder of inputs (data, test data, labels, trained runs, a checkpoint, a config) is watched with
Linux inotify while each command runs, alone and on 2 ranks; any event that creates, deletes,
renames, writes or changes the attributes of an entry in it fails the case, however briefly the
entry lived. A file listing before and after (as run_faults.py compares) cannot see a file that is
created and removed within a run, such as the `<input>.locktest.<rank>` probe of Open MPI's MPI-IO
layer, which is what made such listings flaky.

  inputs_untouched.py --gplvm build/gplvm --mpiexec mpirun [--mpi-flags "..."]
"""
import argparse
import ctypes
import ctypes.util
import os
import shlex
import struct
import subprocess
import sys
import tempfile

import fault_fixtures

# inotify(7) event bits: everything that alters the folder or a file in it. Reads and opens are not
# watched: reading the inputs is the command's job.
IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x002, 0x004, 0x008
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x040, 0x080, 0x100, 0x200
ALTERING = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
NAMES = {IN_MODIFY: "modified", IN_ATTRIB: "attributes changed", IN_CLOSE_WRITE: "written",
         IN_MOVED_FROM: "moved away", IN_MOVED_TO: "moved in", IN_CREATE: "created", IN_DELETE: "deleted"}
IN_NONBLOCK = os.O_NONBLOCK
EVENT_HEADER = struct.Struct("iIII")


class FolderWatch:
    """The altering events on one folder's entries, collected between start and take."""

    def __init__(self, folder):
        self.libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = self.libc.inotify_init1(IN_NONBLOCK)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        if self.libc.inotify_add_watch(self.fd, folder.encode(), ALTERING) < 0:
            raise OSError(ctypes.get_errno(), f"inotify_add_watch {folder}")

    def take(self):
        events = []
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return events
            offset = 0
            while offset < len(data):
                _, mask, _, length = EVENT_HEADER.unpack_from(data, offset)
                name = data[offset + EVENT_HEADER.size: offset + EVENT_HEADER.size + length].rstrip(b"\0").decode()
                offset += EVENT_HEADER.size + length
                what = ", ".join(text for bit, text in NAMES.items() if mask & bit)
                events.append(f"{name or '.'}: {what}")


def commands(fx):
    """Each command that reads an input, with its output outside the inputs' folder."""
    run, data, test = f"{fx}/run.h5", f"{fx}/data.h5", f"{fx}/test.h5"
    checkpoint = f"{fx}/checkpoint.h5"
    return {
        "info data": ["info", data],
        "info run": ["info", run],
        "info checkpoint": ["info", checkpoint],
        "train": ["train", "--config", f"{fx}/config.toml", "--output.path=out.h5"],
        "train --resume": ["train", "--config", f"{fx}/config.toml", "--resume", checkpoint,
                           "--train.max_steps=6", "--output.path=out.h5"],
        "encode": ["encode", "--run", run, "--data", test, "--output", "out.h5"],
        "evaluate": ["evaluate", "--run", run, "--test", test, "--output", "out.h5"],
        "predict": ["predict", "--run", run, "--latents", f"{fx}/latents.h5", "--output", "out.h5"],
        "exact": ["exact", "--run", run],
        "export": ["export", "--run", run, "--format", "csv", "--output", "exported"],
        "embedding-metrics": ["embedding-metrics", "--data", data, "--latents", f"{fx}/latents_64.h5",
                              "--output", "out.h5"],
        "import": ["import", "--input", f"{fx}/good.csv", "--output", "out.h5"],
    }


def make_inputs(gplvm, fx, env):
    fault_fixtures.make_data_files(fx)
    fault_fixtures.make_import_files(fx)
    fault_fixtures.make_configs(fx)
    fault_fixtures.train(gplvm, fx, "run", [], env)
    # A checkpoint of a run stopped after 2 steps, to resume from.
    fault_fixtures.train(gplvm, fx, "stopped", ["--train.max_steps=2", "--train.checkpoint_every=2"], env)
    checkpoints = sorted(os.listdir(f"{fx}/stopped.h5.checkpoints"))
    os.rename(f"{fx}/stopped.h5.checkpoints/{checkpoints[-1]}", f"{fx}/checkpoint.h5")
    subprocess.run(["rm", "-r", f"{fx}/stopped.h5.checkpoints", f"{fx}/stopped.h5"], check=True)
    import numpy as np
    fault_fixtures.write_data(f"{fx}/latents.h5", np.zeros((5, 2)), dataset="/latent/mean")
    fault_fixtures.write_data(f"{fx}/latents_64.h5", np.random.default_rng(0).standard_normal(
        (fault_fixtures.ROWS, 2)), dataset="/latent/mean")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gplvm", required=True)
    parser.add_argument("--mpiexec", default="mpirun")
    parser.add_argument("--mpi-flags", default="--oversubscribe")
    options = parser.parse_args()
    gplvm = os.path.abspath(options.gplvm)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OMP_WAIT_POLICY="passive")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="gplvm-inputs-") as root:
        fx, work = os.path.join(root, "inputs"), os.path.join(root, "work")
        os.mkdir(fx)
        make_inputs(gplvm, fx, env)
        watch = FolderWatch(fx)
        watch.take()
        for ranks in (1, 2):
            launcher = [options.mpiexec, "-n", str(ranks)] + shlex.split(options.mpi_flags) if ranks > 1 else []
            for name, args in commands(fx).items():
                os.mkdir(work)
                done = subprocess.run(["timeout", "300"] + launcher + [gplvm] + args, cwd=work, env=env,
                                      capture_output=True, text=True)
                events = watch.take()
                subprocess.run(["rm", "-r", work], check=True)
                title = f"{name} (np {ranks})"
                if done.returncode != 0:
                    failed += 1
                    print(f"FAIL  {title}: exit code {done.returncode}\n        {done.stderr.strip()[-600:]}")
                elif events:
                    failed += 1
                    print(f"FAIL  {title}: the inputs' folder changed: " + "; ".join(events))
                else:
                    print(f"ok    {title}")
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

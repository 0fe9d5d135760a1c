#!/usr/bin/python3
"""Shared machinery of the paper-table drivers (table_4_1.py, table_4_2.py, study_40k.py).

A *cell* is one training run of one model at one seed, followed by its evaluation on the test set.
Cells live in <out>/cells/<cell id>/ and are shared between tables (Table 4.2's Bayesian SAS cells are
Table 4.1's). Each cell is resumable:

  run.h5.checkpoints/  gplvm train --resume auto continues a killed run from its newest checkpoint
  run.h5, train.json   the finished run and its summary (gplvm train --json)
  eval.h5, eval.json   gplvm evaluate on the test set (--json summary)
  result.json          everything a table needs, written last (temporary name, then rename): a cell
                       with a result.json whose spec matches is finished and never recomputed

A cell runs either here (mpirun, `run`), or as one task of a Slurm job array (`submit` writes the
array; each task calls `<driver> cell --index I`), both through the same code.
"""

import argparse
import hashlib
import json
import math
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))
import gplvm_run  # noqa: E402  (tools/gplvm_run.py: loads run and evaluation files)

FASHION_MNIST_DIR = "/usr/share/datasets/fashion-mnist"


class DriverError(Exception):
    """A failed step of a cell or a bad argument: reported in one line, exit 2 (bad input) or 1."""

    def __init__(self, message, exit_code=1):
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class Cell:
    """One training run: an id, the `gplvm train` overrides that define it, and what to evaluate."""

    cell_id: str
    model: str  # the row or column of the table it fills, e.g. "sas" or "bayesian_sas"
    setting: dict  # e.g. {"A": 100}
    seed: int
    overrides: list  # --section.key=value arguments of gplvm train
    # "predictive": gplvm evaluate (exact-GP predictive metrics and latents of the test set, GP decoders);
    # "encode": gplvm encode of the test set only (models without a GP decoder: the VAE); "": no test set
    evaluate: str = "predictive"
    extra: dict = field(default_factory=dict)

    def spec(self, base_config):
        """What makes two runs the same: a changed override or config file means a new run."""
        return {"config": os.path.relpath(base_config, REPO), "overrides": self.overrides, "evaluate": self.evaluate}

    def spec_hash(self, base_config):
        text = json.dumps(self.spec(base_config), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def write_json_atomically(path, value):
    temporary = f"{path}.tmp-{os.getpid()}"
    with open(temporary, "w") as handle:
        json.dump(value, handle, indent=1, sort_keys=True)
        handle.write("\n")
    os.replace(temporary, path)


def read_json(path):
    with open(path) as handle:
        return json.load(handle)


def last_json_line(text, what):
    """gplvm --json prints its summary as the last line starting with '{'."""
    for line in reversed(text.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise DriverError(f"{what}: no JSON summary in its output")


# ---- running gplvm -----------------------------------------------------------------------------------


@dataclass
class Runner:
    """How gplvm is started: the binary, the rank count and the launcher (mpirun here, srun under Slurm)."""

    gplvm: str
    ranks: int = 1
    log_dir: str = ""

    def command(self, args):
        # Inside jobs/reproduce.sbatch the launcher (srun or mpirun, as jobs/lib/gplvm-job.sh chose it) comes in
        # GPLVM_LAUNCH_PREFIX; here it is mpirun, or nothing for one rank.
        prefix = os.environ.get("GPLVM_LAUNCH_PREFIX")
        if prefix:
            return [*shlex.split(prefix), self.gplvm, *args]
        if self.ranks <= 1:
            return [self.gplvm, *args]
        launch = ["mpirun", "-n", str(self.ranks)]
        if os.geteuid() == 0:
            launch.append("--allow-run-as-root")
        if self.ranks > (os.cpu_count() or 1):
            launch.append("--oversubscribe")
        return [*launch, self.gplvm, *args]

    def run(self, args, what, log_name):
        env = dict(os.environ)
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        env.setdefault("OMP_NUM_THREADS", "1")
        started = time.time()
        done = subprocess.run(self.command(args), capture_output=True, text=True, env=env)
        if self.log_dir:
            with open(os.path.join(self.log_dir, log_name), "a") as log:
                log.write(f"$ {' '.join(self.command(args))}\n{done.stderr}{done.stdout}\n")
        if done.returncode != 0:
            tail = "\n".join(done.stderr.strip().splitlines()[-5:])
            raise DriverError(f"{what} failed with exit code {done.returncode}:\n{tail}")
        summary = last_json_line(done.stdout, what)
        summary["driver_seconds"] = time.time() - started
        return summary


# ---- the data ------------------------------------------------------------------------------------------


def import_fashion_mnist(runner, data_dir):
    """The training and test sets as HDF5 (pixels scaled to [0, 1], labels kept), imported once."""
    os.makedirs(data_dir, exist_ok=True)
    paths = {}
    for split, name in (("train", "train"), ("t10k", "test")):
        path = os.path.join(data_dir, f"fashion_mnist_{name}.h5")
        if not os.path.isfile(path):
            images = os.path.join(FASHION_MNIST_DIR, f"{split}-images-idx3-ubyte.gz")
            labels = os.path.join(FASHION_MNIST_DIR, f"{split}-labels-idx1-ubyte.gz")
            if not os.path.isfile(images):
                raise DriverError(f"{images} not found: install the Debian package dataset-fashion-mnist "
                                  "(scripts/install-deps.sh --with-demo)", exit_code=2)
            Runner(runner.gplvm).run(["import", "--input", images, "--labels", labels, "--scale", "1/255",
                                      "--float32", "--output", path, "--json"], f"import {images}", "import.log")
        paths[name] = path
    return paths


# ---- one cell ------------------------------------------------------------------------------------------


def knn_accuracy_both_protocols(run_path, evaluation_path, test_path):
    """1-NN accuracy of the encoded test set, fit on the training latents and fit on the test latents.

    "train": the classifier holds the encoded training set and labels each encoded test point (the paper's
    wording). "test": the classifier holds the encoded test set and labels each test point by its nearest
    *other* test point, leave-one-out (the thesis' wording; without leaving the point out, the answer is 1).
    """
    from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors

    run = gplvm_run.load_run(run_path)
    with gplvm_run.open_h5(evaluation_path, "evaluation") as h5:
        test_latents = np.asarray(h5["/latent/mean"][()], dtype=float)
    with gplvm_run.open_h5(test_path, "test") as h5:
        test_labels = np.asarray(h5["/labels"][()]).ravel()
    if run.labels is None:
        raise DriverError(f"{run_path}: no /labels, cannot score the 1-NN classifier", exit_code=2)
    fit_on_train = KNeighborsClassifier(n_neighbors=1).fit(run.latent_mean, run.labels)
    accuracy_train = float(np.mean(fit_on_train.predict(test_latents) == test_labels))
    neighbours = NearestNeighbors(n_neighbors=2).fit(test_latents).kneighbors(test_latents, return_distance=False)
    own = np.arange(len(test_latents))
    nearest_other = np.where(neighbours[:, 0] == own, neighbours[:, 1], neighbours[:, 0])
    accuracy_test = float(np.mean(test_labels[nearest_other] == test_labels))
    return {"knn1_fit_on_train": accuracy_train, "knn1_fit_on_test_loo": accuracy_test}


def train_cell(cell, runner, base_config, data, cell_dir):
    """gplvm train for the cell, resuming from its checkpoints; its summary in train.json."""
    run_path = os.path.join(cell_dir, "run.h5")
    summary_path = os.path.join(cell_dir, "train.json")
    if os.path.isfile(run_path) and os.path.isfile(summary_path):
        return read_json(summary_path)
    args = ["train", "--config", base_config, f"--data.path={data['train']}", f"--output.path={run_path}",
            "--resume", "auto", "--json", *cell.overrides]
    if os.path.isfile(run_path):  # trained, but killed before the summary was kept: train again from scratch
        os.remove(run_path)
    summary = runner.run(args, f"gplvm train ({cell.cell_id})", "train.log")
    write_json_atomically(summary_path, summary)
    return summary


def evaluate_cell(cell, runner, data, cell_dir, condition):
    """gplvm evaluate (or encode) on the test set; its summary in eval.json, the test latents in eval.h5."""
    summary_path = os.path.join(cell_dir, "eval.json")
    if os.path.isfile(summary_path):
        return read_json(summary_path)
    evaluation_path = os.path.join(cell_dir, "eval.h5")
    if os.path.isfile(evaluation_path):
        os.remove(evaluation_path)  # left by a killed evaluation
    run_path = os.path.join(cell_dir, "run.h5")
    if cell.evaluate == "encode":
        args = ["encode", "--run", run_path, "--data", data["test"], "--output", evaluation_path, "--json"]
    else:
        args = ["evaluate", "--run", run_path, "--test", data["test"], "--output", evaluation_path, "--condition",
                str(condition), "--json"]
    summary = runner.run(args, f"gplvm {args[0]} ({cell.cell_id})", "evaluate.log")
    write_json_atomically(summary_path, summary)
    return summary


def run_cell(cell, runner, base_config, data, out_dir, condition):
    """Train and evaluate one cell unless its result.json exists with the same spec. Returns the result."""
    cell_dir = os.path.join(out_dir, "cells", cell.cell_id)
    result_path = os.path.join(cell_dir, "result.json")
    spec_hash = cell.spec_hash(base_config)
    if os.path.isfile(result_path):
        result = read_json(result_path)
        if result.get("spec_hash") == spec_hash:
            return result, False
        raise DriverError(f"{cell_dir} holds a different run (spec {result.get('spec_hash')}, this one {spec_hash}): "
                          "remove it or choose another --out", exit_code=2)
    os.makedirs(cell_dir, exist_ok=True)
    runner = Runner(runner.gplvm, runner.ranks, cell_dir)
    result = {"cell": cell.cell_id, "model": cell.model, "setting": cell.setting, "seed": cell.seed,
              "spec": cell.spec(base_config), "spec_hash": spec_hash, "ranks": runner.ranks, "data": data, **cell.extra}
    result["train"] = train_cell(cell, runner, base_config, data, cell_dir)
    if cell.evaluate:
        result["evaluate"] = evaluate_cell(cell, runner, data, cell_dir, condition)
        result["knn"] = knn_accuracy_both_protocols(os.path.join(cell_dir, "run.h5"),
                                                    os.path.join(cell_dir, "eval.h5"), data["test"])
    write_json_atomically(result_path, result)
    return result, True


# ---- tables --------------------------------------------------------------------------------------------


def mean_and_sem(values):
    values = [v for v in values if v is not None and math.isfinite(v)]
    if not values:
        return None, None, 0
    mean = float(np.mean(values))
    sem = float(np.std(values, ddof=1) / math.sqrt(len(values))) if len(values) > 1 else None
    return mean, sem, len(values)


def format_mean_sem(values, scale=1.0, digits=2):
    mean, sem, count = mean_and_sem([v * scale for v in values if v is not None])
    if mean is None:
        return "–"
    if sem is None:
        return f"{mean:.{digits}f} (n=1)"
    return f"{mean:.{digits}f} ± {sem:.{digits}f} (n={count})"


def finished_results(cells, out_dir):
    """The result.json of every finished cell, by cell id."""
    results = {}
    for cell in cells:
        path = os.path.join(out_dir, "cells", cell.cell_id, "result.json")
        if os.path.isfile(path):
            results[cell.cell_id] = read_json(path)
    return results


def convergence_line(cells, results):
    """How many finished runs the stopping rule ended, and how flat the rest ended."""
    done = [results[c.cell_id]["train"] for c in cells if c.cell_id in results]
    if not done:
        return "No cell has finished yet."
    converged = [t for t in done if t.get("converged")]
    tenth = [abs(t["final_tenth_change"]) for t in done if t.get("final_tenth_change") is not None]
    text = f"{len(converged)} of {len(done)} finished runs were ended by the stopping rule"
    if tenth:
        text += (f"; over the last 10% of steps the objective moved by at most {100 * max(tenth):.2f}% "
                 f"(median {100 * float(np.median(tenth)):.2f}%)")
    return text + "."


def write_text_atomically(path, text):
    temporary = f"{path}.tmp-{os.getpid()}"
    with open(temporary, "w") as handle:
        handle.write(text)
    os.replace(temporary, path)


# ---- the command line shared by the drivers -------------------------------------------------------------


def parse_common(description, argv, default_out, add_arguments=None):
    parser = argparse.ArgumentParser(description=description,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["run", "cell", "submit", "collect", "list"],
                        help="run: every unfinished cell here, one after the other, then collect; cell: one cell "
                        "(--index; what each Slurm array task runs); submit: a Slurm job array of the unfinished "
                        "cells (jobs/reproduce.sbatch); collect: write the markdown table from the finished cells; "
                        "list: the cells and whether they are done")
    parser.add_argument("--out", default=os.path.join(REPO, default_out), help="results folder (default %(default)s)")
    parser.add_argument("--gplvm", default=os.environ.get("GPLVM_BIN", os.path.join(REPO, "build", "gplvm")))
    parser.add_argument("--ranks", type=int, default=2, help="MPI ranks per cell (default %(default)s)")
    parser.add_argument("--seeds", type=int, default=5, help="seeds per cell (default %(default)s)")
    parser.add_argument("--index", type=int, help="cell: the cell's index in `list`")
    parser.add_argument("--train-data", help="training set HDF5 (default: Fashion-MNIST imported into OUT/data)")
    parser.add_argument("--test-data", help="test set HDF5 with /labels (default: Fashion-MNIST's test set)")
    parser.add_argument("--config", default=os.path.join(REPO, "configs", "demo_fashion_mnist.toml"),
                        help="base gplvm train config; the cells override its keys (default %(default)s)")
    parser.add_argument("--condition", type=int, default=10000,
                        help="training rows the exact predictive conditions on (default %(default)s)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="an extra gplvm train override for every cell (repeatable), e.g. train.max_steps=5")
    parser.add_argument("--slurm-args", default="", help="submit: extra sbatch arguments, e.g. '-t 12:00:00'")
    if add_arguments:
        add_arguments(parser)
    args = parser.parse_args(argv)
    if args.ranks < 1 or args.seeds < 1:
        parser.error("--ranks and --seeds must be >= 1")
    if (args.train_data is None) != (args.test_data is None):
        parser.error("give both --train-data and --test-data, or neither")
    for item in args.set:
        if "=" not in item or item.startswith("="):
            parser.error(f"--set {item}: expected KEY=VALUE")
    args.out = os.path.abspath(args.out)
    args.config = os.path.abspath(args.config)
    return args


def int_list(text):
    """'100,200,400' -> [100, 200, 400] (argparse type)."""
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got '{text}'") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive integers, got '{text}'")
    return values


def extra_overrides(args):
    return [f"--{item}" for item in args.set]


def data_paths(args, runner):
    if args.train_data:
        return {"train": os.path.abspath(args.train_data), "test": os.path.abspath(args.test_data)}
    return import_fashion_mnist(runner, os.path.join(args.out, "data"))


def submit_array(args, cells, driver_path):
    """One Slurm array task per unfinished cell, each running `<driver> cell --index I` on --ranks tasks."""
    pending = [i for i, c in enumerate(cells) if not os.path.isfile(os.path.join(args.out, "cells", c.cell_id,
                                                                                     "result.json"))]
    if not pending:
        print("every cell is finished; nothing to submit")
        return 0
    forwarded = [a for a in sys.argv[1:] if a not in ("submit",)]
    command = ["sbatch", f"--array={','.join(map(str, pending))}", f"--ntasks={args.ranks}",
               *args.slurm_args.split(), os.path.join(REPO, "jobs", "reproduce.sbatch"), driver_path, *forwarded]
    print(" ".join(command))
    return subprocess.run(command).returncode


def main_loop(args, cells, collect, driver_path):
    """The actions shared by every driver; `collect(cells, results)` returns the markdown table."""
    runner = Runner(args.gplvm, args.ranks)
    os.makedirs(args.out, exist_ok=True)
    if args.action == "list":
        done = finished_results(cells, args.out)
        for index, cell in enumerate(cells):
            print(f"{index:3d} {cell.cell_id:40s} {'done' if cell.cell_id in done else 'pending'}")
        return 0
    if args.action == "submit":
        data_paths(args, runner)  # import once here, not in every array task at the same time
        return submit_array(args, cells, driver_path)
    if args.action in ("run", "cell"):
        if not os.access(args.gplvm, os.X_OK):
            raise DriverError(f"no gplvm executable at {args.gplvm}: build it (make) or pass --gplvm", exit_code=2)
        data = data_paths(args, runner)
        if args.action == "cell":
            if args.index is None or not 0 <= args.index < len(cells):
                raise DriverError(f"--index must be in [0, {len(cells)}) (see `list`)", exit_code=2)
            chosen = [cells[args.index]]
        else:
            chosen = cells
        for cell in chosen:
            started = time.time()
            result, ran = run_cell(cell, runner, args.config, data, args.out, args.condition)
            state = f"finished in {time.time() - started:.0f} s" if ran else "already finished"
            print(f"{cell.cell_id}: {state}", flush=True)
            if args.action == "run":
                write_text_atomically(table_path(args, driver_path), collect(cells, finished_results(cells, args.out)))
        if args.action == "cell":
            return 0
    text = collect(cells, finished_results(cells, args.out))
    write_text_atomically(table_path(args, driver_path), text)
    print(text)
    return 0


def table_path(args, driver_path):
    """OUT/<driver name>.md, or OUT/<args.table_name> when the driver sets one."""
    name = getattr(args, "table_name", None) or os.path.splitext(os.path.basename(driver_path))[0] + ".md"
    return os.path.join(args.out, name)


def run_driver(main):
    try:
        sys.exit(main(sys.argv[1:]))
    except (DriverError, gplvm_run.InputProblem) as problem:
        print(f"error: {problem}", file=sys.stderr)
        sys.exit(getattr(problem, "exit_code", 2))

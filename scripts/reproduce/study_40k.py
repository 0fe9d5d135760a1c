#!/usr/bin/python3
"""The N = 40,000 study of the SAS paper (thesis Fig. 4.8, paper Fig. 5) on Fashion-MNIST: on the first 40,000
training images,

  * SAS at A = 100, 200, 400: the training objective against wall-clock time, and the exact log marginal likelihood
    (gplvm exact, ScaLAPACK, O(N^3)) of the model at checkpoints along the way;
  * Bayesian SAS at A = 100, 200, 400 against the Bayesian GPLVM (inducing points, amortised) at M = 100, 200, 400:
    the objectives against wall-clock time, and the exact LML at the latent means at the same checkpoints, so that
    "which reaches a given exact LML sooner" is measured, not inferred from two different bounds.

    scripts/reproduce/study_40k.py run | submit | collect | list      (as table_4_1.py)
    scripts/reproduce/study_40k.py run --n 10000 --seeds 1            # a smaller study (N^3: 64x cheaper)

Each cell trains with checkpoints every --every steps, all kept; a *snapshot* of a checkpoint is the run file that
checkpoint gives (gplvm train --resume CHECKPOINT with train.max_steps at its step: no further steps), and its exact
LML is computed once and kept (snapshots/step-S.json), so the study resumes snapshot by snapshot too. The wall time
of a snapshot is the training curve's at that step (training time only: the exact LMLs are computed afterwards).
Output: OUT/study_40k.md (the exact LML of each converged model, the time each model first reaches given exact
LMLs) and, through tools/plot_reproduction.py, OUT/study_40k_sas.png and OUT/study_40k_bayesian.png.
"""

import glob
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

import cells as lib

SIZES = (100, 200, 400)


def add_arguments(parser):
    parser.add_argument("--n", type=int, default=40000, help="first N training images (default %(default)s)")
    parser.add_argument("--active", type=lib.int_list, default=list(SIZES), help="A values (default 100,200,400)")
    parser.add_argument("--inducing", type=lib.int_list, default=list(SIZES), help="M values (default 100,200,400)")
    parser.add_argument("--every", type=int, default=500, help="steps between checkpoints (default %(default)s)")
    parser.add_argument("--snapshots", type=int, default=6,
                        help="checkpoints per cell whose exact LML is computed, evenly spaced, the last always "
                        "(default %(default)s)")


def first_rows(source, n, path):
    """The first n rows of /Y and /labels of source, written once to path (temporary name, then rename)."""
    if os.path.isfile(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with h5py.File(source, "r") as f:
        if f["/Y"].shape[0] < n:
            raise lib.DriverError(f"{source} has {f['/Y'].shape[0]} rows, fewer than --n {n}", exit_code=2)
        y, labels = f["/Y"][:n], f["/labels"][:n]
    temporary = f"{path}.tmp-{os.getpid()}"
    with h5py.File(temporary, "w") as f:
        f["/Y"] = y
        f["/labels"] = labels
    os.replace(temporary, path)
    return path


def study_cells(args):
    extra = [f"--train.checkpoint_every={args.every}", "--train.keep_checkpoints=100000", *lib.extra_overrides(args)]
    cells = []
    for seed in range(args.seeds):
        for model in ("sas", "bayesian_sas"):
            for active in args.active:
                cells.append(lib.Cell(cell_id=f"n{args.n}_{model}_A{active}_seed{seed}", model=model,
                                      setting={"A": active}, seed=seed, evaluate="",
                                      overrides=[f"--model.kind={model}", f"--sas.active_size={active}",
                                                 f"--train.seed={seed}", *extra]))
        for inducing in args.inducing:
            cells.append(lib.Cell(cell_id=f"n{args.n}_bayesian_gplvm_M{inducing}_seed{seed}", model="bayesian_gplvm",
                                  setting={"M": inducing}, seed=seed, evaluate="",
                                  overrides=["--model.kind=bayesian_gplvm", f"--sparse.inducing={inducing}",
                                             f"--train.seed={seed}", *extra]))
    return cells


def checkpoint_step(path):
    return int(os.path.basename(path).split("-")[1].split(".")[0])


def chosen_checkpoints(cell_dir, count):
    checkpoints = sorted(glob.glob(os.path.join(cell_dir, "run.h5.checkpoints", "checkpoint-*.h5")),
                         key=checkpoint_step)
    if len(checkpoints) <= count:
        return checkpoints
    # Evenly spaced from the last one backwards, so that a single snapshot is the trained model's.
    picks = np.unique(np.round(np.linspace(len(checkpoints) - 1, 0, count)).astype(int))
    return [checkpoints[i] for i in picks]


def snapshot(cell, runner, config, data_path, cell_dir, checkpoint):
    """Exact LML of the model at one checkpoint, kept in snapshots/step-S.json."""
    step = checkpoint_step(checkpoint)
    folder = os.path.join(cell_dir, "snapshots")
    os.makedirs(folder, exist_ok=True)
    result_path = os.path.join(folder, f"step-{step:09d}.json")
    if os.path.isfile(result_path):
        return lib.read_json(result_path)
    run_path = os.path.join(folder, f"step-{step:09d}.h5")
    scratch = os.path.join(folder, "checkpoints-of-snapshots")
    if os.path.exists(run_path):  # left by a killed snapshot
        os.remove(run_path)
    runner.run(["train", "--config", config, f"--data.path={data_path}", f"--output.path={run_path}",
                f"--output.checkpoint_dir={scratch}", "--resume", checkpoint, f"--train.max_steps={step}", "--json",
                *cell.overrides], f"snapshot of {checkpoint}", "snapshots.log")
    exact = runner.run(["exact", "--run", run_path, "--json"], f"gplvm exact ({cell.cell_id}, step {step})",
                       "snapshots.log")
    os.remove(run_path)  # the checkpoint it came from stays; the LML is what we keep
    shutil.rmtree(scratch, ignore_errors=True)
    result = {"step": step, "exact_lml": exact["log_marginal_likelihood"], "exact_seconds": exact["seconds"],
              "jitter": exact.get("jitter")}
    lib.write_json_atomically(result_path, result)
    return result


def curve_at(cell_dir):
    run = lib.gplvm_run.load_run(os.path.join(cell_dir, "run.h5"))
    return run.curve


def cell_series(cell, out_dir):
    """Per cell: the training curve (step, wall time, objective) and its snapshots with their wall times."""
    cell_dir = os.path.join(out_dir, "cells", cell.cell_id)
    if not os.path.isfile(os.path.join(cell_dir, "result.json")):
        return None
    curve = curve_at(cell_dir)
    snapshots = [lib.read_json(p) for p in sorted(glob.glob(os.path.join(cell_dir, "snapshots", "step-*.json")))]
    for item in snapshots:
        item["wall_time"] = float(np.interp(item["step"], curve["step"], curve["wall_time"]))
        item["objective"] = float(np.interp(item["step"], curve["step"], curve["objective"]))
    train = lib.read_json(os.path.join(cell_dir, "train.json"))
    return {"cell": cell.cell_id, "model": cell.model, "setting": cell.setting, "seed": cell.seed,
            "curve": {k: curve[k].tolist() for k in ("step", "wall_time", "objective")}, "snapshots": snapshots,
            "converged": train.get("converged"), "final_tenth_change": train.get("final_tenth_change")}


def time_to_reach(series, level):
    """Training seconds at the first snapshot whose exact LML is at least `level` (None if never)."""
    for item in sorted(series["snapshots"], key=lambda s: s["step"]):
        if item["exact_lml"] >= level:
            return item["wall_time"]
    return None


def describe_snapshot(item):
    return "–" if item is None else f"{item['exact_lml']:.6g} (step {item['step']})"


def describe(series):
    model = series["model"]
    key, value = next(iter(series["setting"].items()))
    return f"{model} {key} = {value}"


def collect(cells, out_dir, n):
    all_series = [s for s in (cell_series(c, out_dir) for c in cells) if s is not None]
    lines = [f"# The N = {n:,} study: exact log marginal likelihood along training", "",
             "Exact LML (gplvm exact) of each model at its last checkpoint, the training objective there, and the",
             "training time. Bayesian models: the exact LML at the latent means.", "",
             "| model | seed | steps | training s | objective | exact LML | converged | last-10% change |",
             "|---|---|---|---|---|---|---|---|"]
    for series in all_series:
        last = max(series["snapshots"], key=lambda s: s["step"]) if series["snapshots"] else None
        change = series["final_tenth_change"]
        lines.append(f"| {describe(series)} | {series['seed']} | {series['curve']['step'][-1]:.0f} | "
                     f"{series['curve']['wall_time'][-1]:.0f} | {series['curve']['objective'][-1]:.6g} | "
                     f"{describe_snapshot(last)} | "
                     f"{series['converged']} | {('–' if change is None else f'{100 * change:.2f}%')} |")
    # Every model's exact LML is that of the same GP at its latents (the means, for the Bayesian ones),
    # so one set of levels serves them all: the quartiles of the cells' best values (the lowest would
    # be reached at once by every model when one run ends far below the others).
    measured = [s for s in all_series if s["snapshots"]]
    if measured:
        best = [max(item["exact_lml"] for item in s["snapshots"]) for s in measured]
        levels = np.quantile(best, [0.25, 0.5, 0.75])
        lines += ["", "Training seconds until the exact LML first reaches a level (at the checkpoints; – never):", "",
                  "| model | seed | " + " | ".join(f"≥ {level:.6g}" for level in levels) + " |",
                  "|---|---|" + "---|" * len(levels)]
        for series in measured:
            reached = [time_to_reach(series, level) for level in levels]
            lines.append(f"| {describe(series)} | {series['seed']} | "
                         + " | ".join("–" if t is None else f"{t:.0f}" for t in reached) + " |")
    lines += ["", f"Cells finished: {len(all_series)} of {len(cells)}.", ""]
    lib.write_json_atomically(os.path.join(out_dir, f"study_n{n}.json"), all_series)
    return "\n".join(lines)


def run_snapshots(args, cells, runner, data_path):
    for cell in cells:
        cell_dir = os.path.join(args.out, "cells", cell.cell_id)
        if not os.path.isfile(os.path.join(cell_dir, "result.json")):
            continue
        cell_runner = lib.Runner(runner.gplvm, runner.ranks, cell_dir)
        for checkpoint in chosen_checkpoints(cell_dir, args.snapshots):
            snapshot(cell, cell_runner, args.config, data_path, cell_dir, checkpoint)


def plot(out_dir, n):
    script = os.path.join(lib.REPO, "tools", "plot_reproduction.py")
    subprocess.run([sys.executable, script, "study", os.path.join(out_dir, f"study_n{n}.json"), "--out-prefix",
                    os.path.join(out_dir, f"study_n{n}")], check=False)


def main(argv):
    args = lib.parse_common(__doc__, argv, os.path.join("results", "reproduce"), add_arguments)
    if args.n < 2 or args.every < 1 or args.snapshots < 1:
        raise lib.DriverError("--n must be >= 2, --every and --snapshots >= 1", exit_code=2)
    cells = study_cells(args)
    runner = lib.Runner(args.gplvm, args.ranks)
    if args.action in ("run", "cell", "submit") and not args.train_data:
        full = lib.import_fashion_mnist(runner, os.path.join(args.out, "data"))
        args.train_data = first_rows(full["train"], args.n, os.path.join(args.out, "data",
                                                                          f"fashion_mnist_first{args.n}.h5"))
        args.test_data = full["test"]
    elif args.train_data:
        args.train_data = first_rows(args.train_data, args.n,
                                     os.path.join(args.out, "data", f"first{args.n}_" + os.path.basename(args.train_data)))
    args.table_name = f"study_n{args.n}.md"
    collect_table = lambda cells_, results_: collect(cells_, args.out, args.n)  # noqa: E731
    status = lib.main_loop(args, cells, collect_table, os.path.abspath(__file__))
    if args.action in ("run", "cell"):
        chosen = cells if args.action == "run" else [cells[args.index]]
        run_snapshots(args, chosen, runner, args.train_data)
    if args.action == "run":  # again, with the snapshots' exact LMLs
        text = collect(cells, args.out, args.n)
        lib.write_text_atomically(lib.table_path(args, __file__), text)
        print(text)
    if args.action in ("run", "collect"):
        plot(args.out, args.n)
    return status


if __name__ == "__main__":
    lib.run_driver(main)

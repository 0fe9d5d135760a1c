#!/usr/bin/python3
"""Figures of the paper reproduction (scripts/reproduce/, docs/reproduction.md).

    plot_reproduction.py curves OUT [--models sas,bayesian_sas] [--output P.png]
        training curves (objective against training wall time) of the Table 4.1 cells in OUT/cells, one panel per
        model, one colour per A, every seed drawn (the paper's Fig. 2 / thesis Fig. 4.3)
    plot_reproduction.py latents OUT --cells ID[=TITLE],... [--output P.png]
        the encoded test set's 2-D latents of the given cells side by side, coloured by class (the paper's Fig. 4)
    plot_reproduction.py study OUT/study_nN.json --out-prefix P
        P_sas.png: SAS objectives and exact LMLs against training time per A; P_bayesian.png: Bayesian SAS against
        the Bayesian GPLVM, objectives and exact LMLs (the paper's Fig. 5 / thesis Fig. 4.8)

Uses python3-numpy, python3-h5py and python3-matplotlib (headless). Exit status 0, or 2 for bad input.
"""

import argparse
import glob
import json
import os
import sys

import numpy as np

import matplotlib

matplotlib.use("Agg")  # headless: no display on compute nodes
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gplvm_run  # noqa: E402

COLOURS = plt.rcParams["axes.prop_cycle"].by_key()["color"]


def read_result(cell_dir):
    with open(os.path.join(cell_dir, "result.json")) as handle:
        return json.load(handle)


def finished_cells(out):
    cells = []
    for cell_dir in sorted(glob.glob(os.path.join(out, "cells", "*"))):
        if os.path.isfile(os.path.join(cell_dir, "result.json")) and os.path.isfile(os.path.join(cell_dir, "run.h5")):
            cells.append((cell_dir, read_result(cell_dir)))
    return cells


def plot_curves(out, models, output):
    cells = [(d, r) for d, r in finished_cells(out) if r["model"] in models and "A" in r.get("setting", {})]
    if not cells:
        raise gplvm_run.InputProblem(f"{out}: no finished cell of {', '.join(models)}")
    figure, axes = plt.subplots(1, len(models), figsize=(6 * len(models), 4.2), squeeze=False)
    for axis, model in zip(axes[0], models):
        sizes = sorted({r["setting"]["A"] for _, r in cells if r["model"] == model})
        for colour, size in zip(COLOURS, sizes):
            for index, (cell_dir, _) in enumerate([(d, r) for d, r in cells
                                                   if r["model"] == model and r["setting"]["A"] == size]):
                curve = gplvm_run.load_run(os.path.join(cell_dir, "run.h5")).curve
                axis.plot(curve["wall_time"] / 60.0, curve["objective"], color=colour, lw=1, alpha=0.8,
                          label=f"A = {size}" if index == 0 else None)
        axis.set_title(model.replace("_", " "))
        axis.set_xlabel("training time (minutes)")
        axis.set_ylabel("objective")
        axis.grid(alpha=0.3)
        axis.legend()
    figure.tight_layout()
    figure.savefig(output, dpi=120)
    print(f"wrote {output}")


def plot_latents(out, specs, output):
    panels = []
    for spec in specs:
        cell_id, _, title = spec.partition("=")
        cell_dir = os.path.join(out, "cells", cell_id)
        path = os.path.join(cell_dir, "eval.h5")
        with gplvm_run.open_h5(path, "evaluation") as h5:
            latents = np.asarray(h5["/latent/mean"][()], dtype=float)
        test = read_result(cell_dir)
        panels.append((title or cell_id, latents, test))
    labels = None
    test_path = panels[0][2].get("data", {}).get("test")
    if test_path and os.path.isfile(test_path):
        with gplvm_run.open_h5(test_path, "test") as h5:
            labels = gplvm_run.read_labels(h5)
    figure, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 4), squeeze=False)
    for axis, (title, latents, _) in zip(axes[0], panels):
        if latents.shape[1] < 2:
            raise gplvm_run.InputProblem(f"{title}: latents have {latents.shape[1]} dimension(s), need 2")
        colour = labels if labels is not None and len(labels) == len(latents) else None
        axis.scatter(latents[:, 0], latents[:, 1], c=colour, cmap="tab10", s=1, alpha=0.6)
        axis.set_title(title)
        axis.set_xticks([])
        axis.set_yticks([])
    figure.tight_layout()
    figure.savefig(output, dpi=120)
    print(f"wrote {output}")


def study_panel(axis, series, title):
    for colour, item in zip(COLOURS * 4, series):
        key, value = next(iter(item["setting"].items()))
        curve = item["curve"]
        style = "-" if item["model"] != "bayesian_gplvm" else "--"
        label = f"{item['model'].replace('_', ' ')} {key} = {value}, seed {item['seed']}"
        axis.plot(np.asarray(curve["wall_time"]) / 60.0, curve["objective"], style, color=colour, lw=1, alpha=0.7,
                  label=f"{label}: objective")
        snaps = sorted(item["snapshots"], key=lambda s: s["step"])
        if snaps:
            axis.plot([s["wall_time"] / 60.0 for s in snaps], [s["exact_lml"] for s in snaps], style, color=colour,
                      marker="o", lw=2, label=f"{label}: exact LML")
    axis.set_title(title)
    axis.set_xlabel("training time (minutes)")
    axis.set_ylabel("log marginal likelihood / objective")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=6)


def plot_study(path, prefix):
    with open(path) as handle:
        series = json.load(handle)
    groups = {"sas": [s for s in series if s["model"] == "sas"],
              "bayesian": [s for s in series if s["model"] in ("bayesian_sas", "bayesian_gplvm")]}
    titles = {"sas": "SAS: objective and exact LML", "bayesian": "Bayesian SAS (solid) and Bayesian GPLVM (dashed)"}
    for name, members in groups.items():
        if not members:
            continue
        figure, axis = plt.subplots(figsize=(8, 5))
        study_panel(axis, members, titles[name])
        figure.tight_layout()
        figure.savefig(f"{prefix}_{name}.png", dpi=120)
        print(f"wrote {prefix}_{name}.png")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="figure", required=True)
    curves = sub.add_parser("curves")
    curves.add_argument("out")
    curves.add_argument("--models", default="sas,bayesian_sas")
    curves.add_argument("--output")
    latents = sub.add_parser("latents")
    latents.add_argument("out")
    latents.add_argument("--cells", required=True, help="comma-separated cell ids, each optionally =TITLE")
    latents.add_argument("--output")
    study = sub.add_parser("study")
    study.add_argument("json")
    study.add_argument("--out-prefix", required=True)
    args = parser.parse_args(argv)
    try:
        if args.figure == "curves":
            plot_curves(args.out, args.models.split(","), args.output or os.path.join(args.out, "table_4_1_curves.png"))
        elif args.figure == "latents":
            plot_latents(args.out, args.cells.split(","), args.output or os.path.join(args.out, "latents.png"))
        else:
            plot_study(args.json, args.out_prefix)
    except (gplvm_run.InputProblem, OSError, KeyError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

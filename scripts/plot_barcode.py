#!/usr/bin/python3
"""The barcode of a sweep's symmetry breaking: one horizontal bar per outcome (model, or model and
object when each model embeds several objects) of length B_max, sorted, stacked, one panel per cell
(the non-seed axes of the grid, or --by), and a dashed line at B_t. Reads what gplvm sweep writes:
DIR/symmetry.csv and DIR/symmetry_objects.csv.

    /usr/bin/python3 scripts/plot_barcode.py --sweep DIR [DIR ...] --output barcode.png [--threshold 3] [--pool]

Several sweep directories (e.g. one per method) give one row of panels each, titled by the folder
name (or --labels).
"""
import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_sweep(folder, pool):
    """Cells in order of appearance: [(cell name, [B_max of each outcome])], failed models skipped;
    with pool, one cell of every model."""
    with open(os.path.join(folder, "symmetry.csv"), newline="") as f:
        models = list(csv.DictReader(f))
    if not models:
        sys.exit(f"plot_barcode: {folder}/symmetry.csv has no models")
    fixed = {"model", "b_median", "b_max", "broken", "objects", "broken_objects", "final_objective", "error"}
    axes = [k for k in models[0] if k not in fixed and not k.endswith(".seed")]
    objects = {}
    path = os.path.join(folder, "symmetry_objects.csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                objects.setdefault(row["model"], []).append(float(row["b_max"]))
    cells = {}
    for m in models:
        if m["error"] or not m["b_max"]:
            continue
        name = "all" if pool else (" ".join(f"{k.split('.')[-1]}={m[k]}" for k in axes) or "all")
        cells.setdefault(name, []).extend(objects.get(m["model"], [float(m["b_max"])]))
    return list(cells.items())


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sweep", nargs="+", required=True, help="gplvm sweep output folders")
    p.add_argument("--labels", nargs="*", help="a title per folder (default: the folder names)")
    p.add_argument("--threshold", type=float, default=3.0, help="B_t, the dashed line (default 3)")
    p.add_argument("--pool", action="store_true", help="one panel per folder, all its models together")
    p.add_argument("--output", required=True, help="image to write (.png, .pdf, .svg)")
    a = p.parse_args()
    labels = a.labels or [os.path.basename(os.path.normpath(s)) for s in a.sweep]
    if len(labels) != len(a.sweep):
        sys.exit("plot_barcode: give one --labels entry per --sweep folder")
    if os.path.isdir(a.output):
        sys.exit("plot_barcode: --output must name an image file, not a folder")
    sweeps = [read_sweep(s, a.pool) for s in a.sweep]
    columns = max(len(cells) for cells in sweeps)
    fig, grid = plt.subplots(len(sweeps), columns, figsize=(3.2 * columns, 2.8 * len(sweeps)), squeeze=False)
    for row, (label, cells) in enumerate(zip(labels, sweeps)):
        for col in range(columns):
            ax = grid[row][col]
            if col >= len(cells):
                ax.axis("off")
                continue
            name, values = cells[col]
            values = sorted(values)
            broken = [v > a.threshold for v in values]
            ax.barh(range(len(values)), values, height=0.8,
                    color=["tab:red" if b else "tab:blue" for b in broken])
            ax.axvline(a.threshold, color="k", linestyle="--", linewidth=1)
            ax.set_title(f"{label}\n{name}\nbroken {100.0 * sum(broken) / len(values):.1f} % of {len(values)}",
                         fontsize=8)
            ax.set_yticks([])
            ax.set_xlabel("$B_{max}$", fontsize=8)
            ax.tick_params(labelsize=7)
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Table 4.1 of the SAS paper (thesis Table 4.1, paper Table 1), Fashion-MNIST rows: RMSE, MAE and NLPD (x 10^-1,
per pixel) of the exact-GP predictive for the encoded test images, for SAS and Bayesian SAS at A = 100, 200, 400,
B = 1024, Q = 2, five seeds each; mean ± SEM next to the paper's numbers.

    scripts/reproduce/table_4_1.py run            # every unfinished cell here (2 MPI ranks each), then the table
    scripts/reproduce/table_4_1.py submit         # the same as a Slurm job array (one task per unfinished cell)
    scripts/reproduce/table_4_1.py collect        # the table from the cells finished so far
    scripts/reproduce/table_4_1.py list

Every cell trains with configs/demo_fashion_mnist.toml (the paper's encoder and initial hyperparameters, Adam with
a cosine schedule, the stopping rule and divergence rollback) with model.kind, sas.active_size and train.seed set
per cell. Results: results/reproduce/table_4_1.md and results/reproduce/cells/*/result.json. docs/reproduction.md
explains the protocol and the differences from the paper.
"""

import os

import cells as lib

ACTIVE_SIZES = (100, 200, 400)
MODELS = ("sas", "bayesian_sas")
# The paper's Fashion-MNIST rows (x 10^-1): {model: {A: (RMSE, MAE, NLPD)}}, ± as printed.
PAPER = {
    "sas": {100: ("2.37 ± 0.95", "1.48 ± 0.91", "2.76 ± 1.33"), 200: ("2.31 ± 0.94", "1.42 ± 0.91", "2.71 ± 1.31"),
            400: ("2.25 ± 0.90", "1.39 ± 0.89", "2.65 ± 1.23")},
    "bayesian_sas": {100: ("1.99 ± 0.17", "1.11 ± 0.02", "2.16 ± 0.18"),
                     200: ("1.88 ± 0.20", "1.02 ± 0.03", "2.07 ± 0.19"),
                     400: ("1.85 ± 0.13", "0.98 ± 0.02", "2.04 ± 0.12")},
}
METRICS = (("RMSE", "rmse"), ("MAE", "mae"), ("NLPD", "nlpd"))


def sas_cell(model, active, seed, extra):
    return lib.Cell(cell_id=f"{model}_A{active}_seed{seed}", model=model, setting={"A": active}, seed=seed,
                    overrides=[f"--model.kind={model}", f"--sas.active_size={active}", f"--train.seed={seed}",
                               *extra])


def table_cells(args):
    """Seed-major order: the first seed of every cell comes first, so a partial table covers every cell."""
    extra = lib.extra_overrides(args)
    return [sas_cell(model, active, seed, extra) for seed in range(args.seeds) for model in MODELS
            for active in args.active]


def add_arguments(parser):
    parser.add_argument("--active", type=lib.int_list, default=list(ACTIVE_SIZES),
                        help="active-set sizes A, comma-separated (default 100,200,400)")


def collect(cells, results):
    lines = ["# Table 4.1, Fashion-MNIST rows (x 10^-1, per pixel; lower is better)", "",
             "Ours: mean ± SEM over the finished seeds (n). Paper: as printed (thesis Table 4.1). The paper's",
             "NLPD is the absolute value of the per-pixel NLPD; ours is signed (negative is better than any",
             "positive value).", "",
             "| model | A | RMSE ours | RMSE paper | MAE ours | MAE paper | NLPD ours | NLPD paper | 1-NN (fit on train) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for model in MODELS:
        for active in sorted({c.setting["A"] for c in cells}):
            done = [results[c.cell_id] for c in cells
                    if c.model == model and c.setting["A"] == active and c.cell_id in results]
            row = [model, str(active)]
            for index, (_, key) in enumerate(METRICS):
                row.append(lib.format_mean_sem([r["evaluate"][key] for r in done], scale=10.0))
                row.append(PAPER[model].get(active, ("–",) * 3)[index])
            row.append(lib.format_mean_sem([r["knn"]["knn1_fit_on_train"] for r in done], digits=3))
            lines.append("| " + " | ".join(row) + " |")
    conditioning = {r["evaluate"].get("conditioning_points") for r in results.values() if "evaluate" in r}
    test_points = {r["evaluate"].get("test_points") for r in results.values() if "evaluate" in r}
    lines += ["", f"Cells finished: {len(results)} of {len(cells)}. "
              f"Test points: {', '.join(map(str, sorted(test_points))) or '–'}; the exact predictive conditions on "
              f"{', '.join(map(str, sorted(conditioning))) or '–'} encoded training points.",
              lib.convergence_line(cells, results), ""]
    return "\n".join(lines)


def main(argv):
    args = lib.parse_common(__doc__, argv, os.path.join("results", "reproduce"), add_arguments)
    return lib.main_loop(args, table_cells(args), collect, os.path.abspath(__file__))


if __name__ == "__main__":
    lib.run_driver(main)

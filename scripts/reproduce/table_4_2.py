#!/usr/bin/python3
"""Table 4.2 of the SAS paper (thesis Table 4.2, paper Table 2), Fashion-MNIST column: 1-NN classification accuracy
of the 2-D latents of the encoded test set for Bayesian SAS, the Bayesian GPLVM (inducing points, amortised) and the
VAE, five seeds each, under both protocols the sources describe:

  fit on train   the classifier holds the encoded training set, labels each encoded test image (paper)
  fit on test    the classifier holds the encoded test set, labels each test image by its nearest other test
                 image, leave-one-out (thesis)

    scripts/reproduce/table_4_2.py run | submit | collect | list      (as table_4_1.py)

It also trains one encoder-amortised (non-Bayesian) sparse GPLVM, for the latent figure only
(tools/plot_reproduction.py latents). Bayesian SAS cells are Table 4.1's cells at A = 200 (shared, not trained twice); the Bayesian GPLVM has M = 200
inducing inputs (the paper: "comparable to A"); the VAE's decoder is Linear(2, 400), softplus, Linear(400, D), as the
paper's (without its output sigmoid). All from configs/demo_fashion_mnist.toml with model.kind set per cell.
"""

import os

import cells as lib
import table_4_1

PAPER = {"bayesian_sas": "0.63 ± 0.020", "bayesian_gplvm": "0.24 ± 0.043", "vae": "0.58 ± 0.008"}


def model_overrides(model, args):
    if model in ("bayesian_gplvm", "sparse_gplvm"):
        return [f"--model.kind={model}", f"--sparse.inducing={args.inducing}"]
    return ["--model.kind=vae", "--vae.decoder_hidden=[400]", "--vae.decoder_activation=softplus"]


def table_cells(args):
    extra = lib.extra_overrides(args)
    cells = []
    for seed in range(args.seeds):
        cells.append(table_4_1.sas_cell("bayesian_sas", args.active, seed, extra))
        for model in ("bayesian_gplvm", "vae"):
            cells.append(lib.Cell(cell_id=f"{model}_seed{seed}", model=model, setting={}, seed=seed,
                                  overrides=[*model_overrides(model, args), f"--train.seed={seed}", *extra],
                                  evaluate="encode" if model == "vae" else "predictive"))
    # The figure's fifth model (the paper's GPLVM with an encoder), one seed, not in the table: a full GPLVM is
    # O(N^3) at N = 60,000, so the encoder-amortised GPLVM is the inducing-point one, without q(X).
    cells.append(lib.Cell(cell_id="sparse_gplvm_seed0", model="sparse_gplvm", setting={}, seed=0,
                          overrides=[*model_overrides("sparse_gplvm", args), "--train.seed=0", *extra]))
    return cells


def model_labels(args):
    return {"bayesian_sas": f"Bayesian SAS (A = {args.active})",
            "bayesian_gplvm": f"Bayesian GPLVM (M = {args.inducing}, amortised)", "vae": "VAE"}


def collect(cells, results, labels):
    lines = ["# Table 4.2, Fashion-MNIST column: 1-NN accuracy of the 2-D test latents (higher is better)", "",
             "Ours: mean ± SEM over the finished seeds (n). Paper: as printed (± SD or SEM: the sources disagree).",
             "", "| model | fit on train (paper's protocol) | fit on test, leave-one-out (thesis') | paper |",
             "|---|---|---|---|"]
    for model in ("bayesian_sas", "bayesian_gplvm", "vae"):
        done = [results[c.cell_id] for c in cells if c.model == model and c.cell_id in results]
        lines.append(f"| {labels[model]} | "
                     f"{lib.format_mean_sem([r['knn']['knn1_fit_on_train'] for r in done], digits=3)} | "
                     f"{lib.format_mean_sem([r['knn']['knn1_fit_on_test_loo'] for r in done], digits=3)} | "
                     f"{PAPER[model]} |")
    lines += ["", f"Cells finished: {len(results)} of {len(cells)}.", lib.convergence_line(cells, results), ""]
    return "\n".join(lines)


def add_arguments(parser):
    parser.add_argument("--active", type=int, default=200, help="Bayesian SAS active-set size (default %(default)s)")
    parser.add_argument("--inducing", type=int, default=200,
                        help="Bayesian GPLVM inducing inputs M (default %(default)s)")


def main(argv):
    args = lib.parse_common(__doc__, argv, os.path.join("results", "reproduce"), add_arguments)
    labels = model_labels(args)
    return lib.main_loop(args, table_cells(args), lambda cells, results: collect(cells, results, labels),
                         os.path.abspath(__file__))


if __name__ == "__main__":
    lib.run_driver(main)

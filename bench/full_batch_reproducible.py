#!/usr/bin/env python3
"""Cost of train.reproducible in full-batch sparse training: per-rank sums against reproducible sums.

Runs `gplvm train` (sparse.training = full_batch, a fixed number of L-BFGS iterations) with the key off
and on, alternated within each round so that a noisy machine affects both alike, at each rank count,
and prints the median wall time per bound evaluation (the runs' own wall_seconds / evaluations) and
the median of the paired ratios (on / off, same round).

usage: bench/full_batch_reproducible.py --gplvm build/gplvm [--n 20000 --d 100 --inducing 100
       --iterations 30 --rounds 7 --ranks 1 2 --kinds sparse_gplvm bayesian_gplvm]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile


def train_once(args, workdir, kind, ranks, reproducible):
    command = [] if ranks == 1 else ["mpirun", "--oversubscribe", "-n", str(ranks)]
    command += [
        args.gplvm, "train", "--json", "--force",
        f"--data.path={workdir}/data.h5", f"--output.path={workdir}/run.h5",
        f"--model.kind={kind}", f"--model.latents={args.latents}", "--model.latent_dim=2",
        f"--sparse.inducing={args.inducing}", "--sparse.training=full_batch",
        f"--full_batch.max_iterations={args.iterations}", "--full_batch.gatol=0", "--full_batch.grtol=0",
        f"--train.reproducible={'true' if reproducible else 'false'}",
    ]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    summary = json.loads(out.strip().splitlines()[-1])
    return summary["wall_seconds"] / summary["evaluations"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gplvm", required=True)
    p.add_argument("--n", type=int, default=20000)
    p.add_argument("--d", type=int, default=100)
    p.add_argument("--inducing", type=int, default=100)
    p.add_argument("--iterations", type=int, default=30)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    p.add_argument("--kinds", nargs="+", default=["sparse_gplvm", "bayesian_gplvm"])
    p.add_argument("--latents", default="free", choices=["free", "amortised"])
    args = p.parse_args()
    env_note = {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    print(f"N={args.n} D={args.d} M={args.inducing} iterations={args.iterations} latents={args.latents} {env_note}")
    with tempfile.TemporaryDirectory() as workdir:
        subprocess.run([args.gplvm, "generate", "--kind", "gp", "--n", str(args.n), "--d", str(args.d), "--q", "2",
                        "--seed", "1", "--output", f"{workdir}/data.h5"], check=True, capture_output=True)
        print("| kind | ranks | per-rank sums, median ms/evaluation (range) | reproducible sums, median ms/evaluation "
              "(range) | paired ratio, median (range) |")
        print("|---|---|---|---|---|")
        for kind in args.kinds:
            for ranks in args.ranks:
                off, on = [], []
                for _ in range(args.rounds):
                    off.append(train_once(args, workdir, kind, ranks, False))
                    on.append(train_once(args, workdir, kind, ranks, True))
                ratios = [b / a for a, b in zip(off, on)]

                def cell(v, scale=1e3):
                    return f"{statistics.median(v) * scale:.1f} ({min(v) * scale:.1f}-{max(v) * scale:.1f})"

                print(f"| {kind} | {ranks} | {cell(off)} | {cell(on)} | "
                      f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}) |", flush=True)


if __name__ == "__main__":
    main()

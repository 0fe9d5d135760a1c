#!/usr/bin/python3
"""Strong and weak scaling of `gplvm train` over ranks x N on synthetic data.

Strong scaling: fixed N and batch B, more ranks. Weak scaling: N and B grow with P (the work per
rank stays fixed; A is fixed), efficiency = step time at 1 rank / step time at P ranks.

For every (mode, ranks, N, D) it runs `mpirun -n P gplvm train --json` for a fixed number of
steps on gp_rff data (generated once per (N, D), float32 storage) and records per-step time,
points/s, parallel efficiency, bytes communicated per step and peak RSS per rank, next to the cost
model of the step (scripts/cost_model.py: flops and bytes per rank as functions of B, A, D, Q, P). Writes
<out>/scaling.csv, <out>/scaling.png and prints a table.

--threads T runs every rank with T threads (OMP_NUM_THREADS, ranks unbound), so P ranks use P x T
cores; the cost model is per rank either way (a rank's threads share its work and its bytes).

usage: /usr/bin/python3 scripts/scaling_study.py --out results/scaling [--ranks 1,2] [--n 20000,100000]
       [--d 784,50] [--steps 30] [--repeats 3] [--weak-n-per-rank 20000] [--mode both] [--threads 1]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cost_model as model  # noqa: E402  (the step's FLOPs, bytes and time: scripts/cost_model.py)


def run(cmd, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        sys.exit(f"scaling_study.py: error: {' '.join(cmd)} failed ({result.returncode}):\n{result.stderr[-2000:]}")
    return result.stdout


def mpi_prefix(args, p):
    prefix = [args.mpirun, "-n", str(p), "--oversubscribe"]
    if args.threads > 1:  # Open MPI binds a rank to one core by default: no room for its threads
        prefix += ["--bind-to", "none"]
    if os.geteuid() == 0:
        prefix.append("--allow-run-as-root")
    return prefix


def ensure_data(args, n, d):
    path = os.path.join(args.work, f"gp_rff_n{n}_d{d}.h5")
    if not os.path.exists(path):
        run(mpi_prefix(args, max(args.ranks)) + [args.gplvm, "generate", "--kind", "gp_rff", "--n", str(n), "--d",
                                               str(d), "--float32", "--output", path])
    return path


def train(args, p, data, n, batch):
    config = os.path.join(args.work, "scaling.toml")
    with open(config, "w") as f:
        f.write(f'[data]\npath = "{data}"\n[sas]\nbatch_size = {batch}\nactive_size = {args.active}\n'
                f'[train]\nepochs = 1000000\nmax_steps = {args.steps}\nprogress_seconds = 100000\n'
                f'[output]\npath = "{os.path.join(args.work, "run.h5")}"\n')
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS=str(args.threads))
    return json.loads(run(mpi_prefix(args, p) + [args.gplvm, "train", "--config", config, "--json", "--force"], env=env))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gplvm", default="build/gplvm")
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--out", default="results/scaling")
    ap.add_argument("--work", default=None, help="where the synthetic data are kept (default: <out>/data)")
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--n", default="20000,100000", help="N for strong scaling")
    ap.add_argument("--d", default="784,50")
    ap.add_argument("--weak-n-per-rank", type=int, default=20000)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--active", type=int, default=200)
    ap.add_argument("--mode", choices=["strong", "weak", "both"], default="both")
    ap.add_argument("--threads", type=int, default=1, help="threads per rank (OMP_NUM_THREADS)")
    args = ap.parse_args()
    args.ranks = [int(x) for x in args.ranks.split(",")]
    args.work = os.path.abspath(args.work or os.path.join(args.out, "data"))  # written into configs
    os.makedirs(args.work, exist_ok=True)

    cases = []
    for d in (int(x) for x in args.d.split(",")):
        if args.mode in ("strong", "both"):
            cases += [("strong", p, int(n), d) for n in args.n.split(",") for p in args.ranks]
        if args.mode in ("weak", "both"):
            cases += [("weak", p, args.weak_n_per_rank * p, d) for p in args.ranks]
    rows = []
    for mode, p, n, d in cases:
        data = ensure_data(args, n, d)
        # Weak scaling keeps the work per rank fixed: N and the batch grow with P (A stays).
        batch = args.batch * p if mode == "weak" else args.batch
        runs = [train(args, p, data, n, batch) for _ in range(args.repeats)]
        pts = statistics.median(r["points_per_second"] for r in runs)
        step = statistics.median(r["wall_seconds"] / r["steps"] for r in runs)
        flops = sum(model.step_flops(batch, args.active, d, model.Q, p).values())
        model_bytes = model.bytes_per_step(batch, args.active, d, model.Q, p, steps=args.steps)
        rows.append(dict(mode=mode, ranks=p, threads_per_rank=args.threads, n=n, d=d, batch=batch,
                         seconds_per_step=step, points_per_second=pts,
                         bytes_per_step_per_rank=statistics.median(r["bytes_per_step_per_rank"] for r in runs),
                         model_bytes_per_step_per_rank=model_bytes, model_gflop_per_step_per_rank=flops / 1e9,
                         peak_rss_mib_max_rank=max(r["peak_rss_bytes_max_rank"] for r in runs) / 2 ** 20,
                         all_points_per_second=" ".join(f"{r['points_per_second']:.0f}" for r in runs)))
    for r in rows:  # efficiency against the 1-rank run of the same mode, N (strong) or N/P (weak) and D
        base = [b for b in rows if b["mode"] == r["mode"] and b["d"] == r["d"] and b["ranks"] == min(args.ranks)
                and (b["n"] == r["n"] if r["mode"] == "strong" else True)]
        ref = base[0]["points_per_second"] / base[0]["ranks"] if base else float("nan")
        r["efficiency"] = r["points_per_second"] / (r["ranks"] * ref) if r["mode"] == "strong" else \
            base[0]["seconds_per_step"] / r["seconds_per_step"]
    path = os.path.join(args.out, "scaling.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print("| mode | P | N | D | B | ms/step | points/s | efficiency | bytes/step/rank (measured / model) | "
          "GFLOP/step/rank (model) | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mode']} | {r['ranks']} | {r['n']} | {r['d']} | {r['batch']} | {1e3 * r['seconds_per_step']:.1f} | "
              f"{r['points_per_second']:.0f} | {r['efficiency']:.2f} | {r['bytes_per_step_per_rank']:.0f} / "
              f"{r['model_bytes_per_step_per_rank']:.0f} | {r['model_gflop_per_step_per_rank']:.2f} | "
              f"{r['peak_rss_mib_max_rank']:.0f} |")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for d in sorted({r["d"] for r in rows}):
        for n in sorted({r["n"] for r in rows if r["mode"] == "strong" and r["d"] == d}):
            sel = [r for r in rows if r["mode"] == "strong" and r["d"] == d and r["n"] == n]
            axes[0].plot([r["ranks"] for r in sel], [r["points_per_second"] for r in sel], "o-", label=f"N={n}, D={d}")
        sel = [r for r in rows if r["mode"] == "weak" and r["d"] == d]
        if sel:
            axes[1].plot([r["ranks"] for r in sel], [1e3 * r["seconds_per_step"] for r in sel], "s-", label=f"D={d}")
    axes[0].set(xlabel="ranks", ylabel="points/s", title="strong scaling")
    axes[1].set(xlabel="ranks (N = %d per rank)" % args.weak_n_per_rank, ylabel="ms per step", title="weak scaling")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "scaling.png"), dpi=120)
    print(f"wrote {path} and {os.path.join(args.out, 'scaling.png')}")


if __name__ == "__main__":
    main()

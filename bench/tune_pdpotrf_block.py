#!/usr/bin/python3
"""Block-size sweep for the exact path's pdpotrf: bench_exact at each (N, NB), alternating block
sizes within each repeat so that all see the same machine state. Prints, per N and NB, the median
pdpotrf GFLOP/s, the same runs' dpotrf GFLOP/s (LAPACK, one core) and the ratio
pdpotrf / (dpotrf x ranks).

usage: /usr/bin/python3 bench/tune_pdpotrf_block.py [--build build] [--ranks 2] [--n 5000,10000]
       [--blocks 32,48,64,96,128,192] [--repeats 3]
"""
import argparse
import os
import re
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(build, ranks, n, block):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = ["mpirun", "-n", str(ranks), "--bind-to", "core", os.path.join(build, "bench", "bench_exact"),
           "--n", str(n), "--block", str(block), "--repeats", "1", "--skip-gradient"]
    out = subprocess.run(cmd, env=env, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    rate = lambda name: float(re.search(name + r".*?([0-9.]+) GFLOP/s", out).group(1))
    return rate(r"\npdpotrf:"), rate(r"dpotrf \(rank 0\):")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--n", default="5000,10000")
    ap.add_argument("--blocks", default="32,48,64,96,128,192")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    blocks = [int(b) for b in a.blocks.split(",")]
    print(f"| N | NB | pdpotrf GFLOP/s | dpotrf GFLOP/s (same runs) | pdpotrf / (dpotrf x {a.ranks}) |")
    print("|---|---|---|---|---|")
    for n in (int(x) for x in a.n.split(",")):
        results = {b: [] for b in blocks}
        for _ in range(a.repeats):
            for b in blocks:
                results[b].append(measure(a.build, a.ranks, n, b))
        for b in blocks:
            p = statistics.median(r[0] for r in results[b])
            d = statistics.median(r[1] for r in results[b])
            ratio = statistics.median(r[0] / (r[1] * a.ranks) for r in results[b])
            print(f"| {n} | {b} | {p:.1f} | {d:.1f} | {ratio:.2f} |", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""C++ SAS step (bench_sas_step) against the PyTorch baseline (bench/pytorch_sas.py), side by side.

The two implementations are run alternately, configuration by configuration and repeat by repeat,
in one job, so that both see the same machine state. B = 1024, D = 784, Q = 2, encoder 512-256.
Default matrix: A in {100, 200, 400} x {fp64, fp32} x {1, 2} cores, plus Bayesian SAS and free
latents at A = 200 on one core. On two cores C++ runs in both layouts, 2 MPI ranks x 1 thread and
1 rank x 2 threads (OMP_NUM_THREADS), each against the same PyTorch run (2 intra-op threads).
Prints a markdown table of medians (ms/step) and C++/PyTorch ratios, and writes every raw
measurement as JSON lines to --raw.

usage: /usr/bin/python3 bench/compare_pytorch.py [--build build] [--repeats 3] [--raw FILE]
       [--quick]   (A = 200 only, no two-core runs: for a smoke test)  [--cores N]  (only those cases)
       [--python PATH]  (the baseline's interpreter; default /usr/bin/python3, Debian's python3-torch)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

from bench_run import use_openblas_coretype

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def env_for(cores):
    # OMP_WAIT_POLICY=PASSIVE: with GNU OpenMP's default (spinning) PyTorch's idle intra-op threads
    # compete with OpenBLAS's threads for the two cores; measured 174 ms/step at 2 threads against
    # 53 with PASSIVE (and 82 at 1 thread). The baseline gets its best setting.
    env = dict(os.environ)
    env.update(OPENBLAS_NUM_THREADS=str(cores), OMP_NUM_THREADS=str(cores), MKL_NUM_THREADS=str(cores),
               OMP_WAIT_POLICY="PASSIVE", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def run_json(cmd, env):
    out = subprocess.run(cmd, env=env, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if not lines:
        sys.exit(f"no JSON line from {' '.join(cmd)}:\n{out}")
    return json.loads(lines[-1])


def layouts(case):
    """C++ (ranks, threads per rank) layouts for a case's core count."""
    c = case["cores"]
    return [(1, 1)] if c == 1 else [(c, 1), (1, c)]


def cpp(build, case, layout):
    ranks, threads = layout
    cmd = [os.path.join(build, "bench", "bench_sas_step"), "--json", "--rounds", "4", "--active", str(case["active"])]
    cmd += ["--float32"] if case["dtype"] == "float32" else []
    cmd += ["--bayesian"] if case["bayesian"] else []
    cmd += ["--free"] if case["free"] else []
    if ranks > 1:
        cmd = ["mpirun", "-n", str(ranks), "--bind-to", "core"] + cmd
    env = env_for(1)
    # The rank's own threads: one per core, spinning between parallel regions (the default wait
    # policy) since the cores are theirs; OpenBLAS stays at one thread (it only runs the Cholesky).
    env.update(OMP_NUM_THREADS=str(threads))
    env.pop("OMP_WAIT_POLICY")
    return run_json(cmd, env)


def pytorch(python, case):
    cmd = [python, os.path.join(HERE, "pytorch_sas.py"), "--steps", "12", "--active",
           str(case["active"]), "--dtype", case["dtype"], "--threads", str(case["cores"])]
    cmd += ["--bayesian"] if case["bayesian"] else []
    cmd += ["--free"] if case["free"] else []
    return run_json(cmd, env_for(case["cores"]))


def cases(quick):
    actives = [200] if quick else [100, 200, 400]
    cores = [1] if quick else [1, 2]
    out = []
    for dtype in ("float64", "float32"):
        for c in cores:
            for a in actives:
                out.append(dict(active=a, dtype=dtype, cores=c, bayesian=False, free=False))
        for bayesian, free in ((True, False), (False, True), (True, True)):
            out.append(dict(active=200, dtype=dtype, cores=1, bayesian=bayesian, free=free))
    return out


def label(case, layout):
    model = ("Bayesian SAS" if case["bayesian"] else "SAS") + (", free latents" if case["free"] else "")
    return f"| {model} | {case['dtype']} | {case['cores']} | {layout[0]} x {layout[1]} | {case['active']} |"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--raw", default=None, help="write every measurement here as JSON lines")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cores", type=int, default=0, help="only the cases with this many cores")
    ap.add_argument("--python", default="/usr/bin/python3",
                    help="interpreter with torch for the baseline (default: Debian's, with python3-torch)")
    a = ap.parse_args()
    use_openblas_coretype(os.path.join(a.build, "gplvm"))  # before any run: PyTorch's BLAS too
    raw = open(a.raw, "w") if a.raw else None
    print("| model | precision | cores | C++ ranks x threads | A | C++ ms/step | PyTorch ms/step | C++ / PyTorch "
          "| C++ step / best GEMM | C++ step / OpenBLAS GEMM | C++ step / GEMM limit of its precision mix |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for case in cases(a.quick):
        if a.cores and case["cores"] != a.cores:
            continue
        runs = {layout: dict(ms=[], ratio=[], blas=[], mixed=[]) for layout in layouts(case)}
        p_times = []
        for _ in range(a.repeats):
            for layout, r in runs.items():
                c = cpp(a.build, case, layout)
                r["ms"].append(c["ms_per_step"])
                r["ratio"].append(c["ratio_to_best_gemm"])
                # The library's xGEMM alone (the packed engine is faster, so "best" is a higher bar).
                r["blas"].append(c["gflops_step"] / c["gflops_openblas"])
                r["mixed"].append(c["ratio_to_precision_mix"])
                if raw:
                    raw.write(json.dumps(dict(c, cores=case["cores"])) + "\n")
            p = pytorch(a.python, case)
            p_times.append(p["ms_per_step"])
            if raw:
                raw.write(json.dumps(dict(p, cores=case["cores"])) + "\n")
        p_med = statistics.median(p_times)
        for layout, r in runs.items():
            c_med = statistics.median(r["ms"])
            print(f"{label(case, layout)} {c_med:.1f} | {p_med:.1f} | **{c_med / p_med:.2f}** | "
                  f"{statistics.median(r['ratio']):.2f} | {statistics.median(r['blas']):.2f} | "
                  f"{statistics.median(r['mixed']):.2f} |", flush=True)


if __name__ == "__main__":
    main()

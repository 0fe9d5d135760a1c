#!/usr/bin/python3
"""C++ Bayesian GPLVM step (bench_bayesian_gplvm_step) against the PyTorch baseline
(bench/pytorch_bayesian_gplvm.py), side by side, after checking that both compute the same bound.

1. Cross-check: the C++ bench writes keyed random inputs (free latents, B = 1024, D = 784, Q = 2, the
   first M, scale N/B = 8, lengthscale 0.3 so that K_ZZ factorises without jitter), its value and
   every gradient to a file; the PyTorch script recomputes them; the relative differences are
   printed and the run stops if the value differs by more than 1e-8 or a gradient by more than 1e-6.
2. Timing: for each M, the two are run alternately, repeat by repeat, in one job. B = 1024, D = 784,
   Q = 2, amortised latents (encoders 784 -> 512 -> 256 -> 2), fp64. One core: C++ 1 rank, PyTorch 1
   thread. Two cores: C++ 2 MPI ranks x 1 thread, PyTorch 2 intra-op threads (OMP_WAIT_POLICY=PASSIVE,
   its fastest setting). Prints a markdown table of medians and C++/PyTorch ratios.

usage: /usr/bin/python3 bench/compare_pytorch_bgplvm.py [--build build] [--repeats 3]
       [--inducing 50,100,200] [--cores 1,2] [--free] [--raw FILE] [--python /usr/bin/python3]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_run import use_openblas_coretype

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def env_for(threads):
    env = dict(os.environ)
    env.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads),
               OMP_WAIT_POLICY="PASSIVE", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def run_json(cmd, env):
    out = subprocess.run(cmd, env=env, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if not lines:
        sys.exit(f"no JSON line from {' '.join(cmd)}:\n{out}")
    return [json.loads(line) for line in lines]


def cross_check(a, bench, m):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "check.bin")
        run_json([bench, "--check-out", path, "--inducing", str(m), "--lengthscale", "0.3"], env_for(1))
        r = run_json([a.python, os.path.join(HERE, "pytorch_bayesian_gplvm.py"), "--check", path], env_for(1))[-1]
    print(f"cross-check (free latents, B={r['B']} D={r['D']} Q={r['Q']} M={r['M']}, scale {r['scale']:g}): "
          f"value gplvm {r['value_gplvm']:.17g} torch {r['value_torch']:.17g}, relative difference "
          f"{r['value_rel_diff']:.2e}; gradients, worst relative difference (2-norm) {r['grad_worst_rel_diff']:.2e}"
          f" ({', '.join(f'{k[5:-9]} {v:.1e}' for k, v in r.items() if k.startswith('grad_') and k != 'grad_worst_rel_diff')})",
          flush=True)
    if not (r["value_rel_diff"] < 1e-8 and r["grad_worst_rel_diff"] < 1e-6):
        sys.exit("cross-check FAILED: the two do not compute the same bound")
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--inducing", default="50,100,200")
    ap.add_argument("--cores", default="1,2")
    ap.add_argument("--free", action="store_true", help="free latents instead of amortised")
    ap.add_argument("--raw", default=None, help="write every measurement here as JSON lines")
    ap.add_argument("--python", default="/usr/bin/python3")
    a = ap.parse_args()
    use_openblas_coretype(os.path.join(a.build, "gplvm"))  # before any run: PyTorch's BLAS too
    bench = os.path.join(a.build, "bench", "bench_bayesian_gplvm_step")
    inducing = [int(m) for m in a.inducing.split(",")]
    cross_check(a, bench, inducing[0])
    raw = open(a.raw, "w") if a.raw else None
    print("| latents | cores | C++ ranks | M | C++ ms/step | C++ points/s | PyTorch ms/step | **C++ / PyTorch** "
          "| C++ GFLOP/step | C++ step / best DGEMM | best DGEMM GFLOP/s (x ranks) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for cores in (int(c) for c in a.cores.split(",")):
        for m in inducing:
            c_runs, p_runs = [], []
            for _ in range(a.repeats):
                cmd = [bench, "--json", "--inducing", str(m), "--rounds", "3", "--steps-per-round", "4"]
                cmd += ["--free"] if a.free else []
                if cores > 1:
                    cmd = ["mpirun", "-n", str(cores), "--bind-to", "core"] + cmd
                c = run_json(cmd, env_for(1))[-1]
                c_runs.append(c)
                pcmd = [a.python, os.path.join(HERE, "pytorch_bayesian_gplvm.py"), "--inducing", str(m),
                        "--threads", str(cores), "--steps", "8", "--warmup", "2"]
                pcmd += ["--free"] if a.free else []
                p = run_json(pcmd, env_for(cores))[-1]
                p_runs.append(p)
                if raw:
                    raw.write(json.dumps(dict(c, cores=cores)) + "\n")
                    raw.write(json.dumps(dict(p, cores=cores)) + "\n")
            c_ms = statistics.median(r["ms_per_step"] for r in c_runs)
            p_ms = statistics.median(r["ms_per_step"] for r in p_runs)
            ratio = statistics.median(r["ratio_to_best_gemm"] for r in c_runs)
            best = statistics.median(max(r["gflops_openblas"], r["gflops_eigen"], r["gflops_engine"]) for r in c_runs)
            print(f"| {'free' if a.free else 'amortised'} | {cores} | {cores} | {m} | {c_ms:.1f} | "
                  f"{1024 / c_ms * 1e3:.0f} | {p_ms:.1f} | **{c_ms / p_ms:.2f}** | {c_runs[0]['gflop_step']:.2f} | "
                  f"{ratio:.2f} | {best:.1f} |", flush=True)


if __name__ == "__main__":
    main()

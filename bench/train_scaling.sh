#!/usr/bin/env bash
# Points/s of `gplvm train` at 1 and 2 ranks on the same synthetic data, alternating the rank
# counts over repeats (the machine is shared and noisy), with parallel efficiency and the bytes
# each rank contributes to collectives per step (counted in the MPI wrapper).
#   bench/train_scaling.sh [BUILD_DIR] [REPEATS] [N] [STEPS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}; repeats=${2:-3}; n=${3:-20000}; steps=${4:-40}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
flags=(--oversubscribe); [ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
export OPENBLAS_NUM_THREADS=1
"$build/gplvm" generate --kind gp_rff --n "$n" --d 784 --float32 --output "$work/data.h5" > /dev/null
cat > "$work/bench.toml" <<TOML
[data]
path = "$work/data.h5"
[sas]
batch_size = 1024
active_size = 200
[train]
epochs = 1000
max_steps = $steps
progress_seconds = 1000
[output]
path = "$work/run.h5"
TOML
for r in $(seq "$repeats"); do
  for p in 1 2; do
    mpirun -n "$p" "${flags[@]}" "$build/gplvm" train --config "$work/bench.toml" --json 2> /dev/null |
      sed "s/^/$p /" >> "$work/results.txt"
  done
done
/usr/bin/python3 - "$work/results.txt" "$n" "$steps" <<'PY'
import json, statistics, sys
rows = [line.split(" ", 1) for line in open(sys.argv[1])]
by_p = {}
for p, js in rows:
    by_p.setdefault(int(p), []).append(json.loads(js))
med = {p: statistics.median(r["points_per_second"] for r in v) for p, v in by_p.items()}
print(f"N = {sys.argv[2]}, D = 784 (float32 storage), B = 1024, A = 200, {sys.argv[3]} steps per run, "
      f"{len(by_p[1])} runs per rank count (medians)")
print("| ranks | points/s (median) | all runs | parallel efficiency | bytes/step/rank |")
print("|---|---|---|---|---|")
for p in sorted(by_p):
    runs = ", ".join(f"{r['points_per_second']:.0f}" for r in by_p[p])
    eff = med[p] / (p * med[1])
    b = statistics.median(r["bytes_per_step_per_rank"] for r in by_p[p])
    print(f"| {p} | {med[p]:.0f} | {runs} | {eff:.2f} | {b:.0f} |")
PY

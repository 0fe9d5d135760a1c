#!/usr/bin/env bash
# C++ SAS step (bench_sas_step) against the PyTorch baseline (bench/pytorch_sas.py), alternating the
# two implementations in one job so that both see the same machine state; fp64, one thread,
# B = 1024, D = 784, Q = 2, encoder 512-256, A in {100, 200, 400}. Prints medians and the ratio.
#   bench/compare_pytorch.sh [BUILD_DIR] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}; repeats=${2:-3}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
echo "| A | C++ ms/step (median) | PyTorch ms/step (median) | C++ / PyTorch |"
echo "|---|---|---|---|"
for a in 100 200 400; do
  cpp=(); py=()
  for r in $(seq "$repeats"); do
    cpp+=("$("$build/bench/bench_sas_step" --active "$a" --rounds 3 | sed -n 's/^step: \([0-9.]*\) ms.*/\1/p')")
    py+=("$(/usr/bin/python3 bench/pytorch_sas.py --active "$a" --steps 10 | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["ms_per_step"])')")
  done
  /usr/bin/python3 - "$a" "${cpp[*]}" "${py[*]}" <<'PY'
import statistics, sys
a, cpp, py = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
c, p = statistics.median(cpp), statistics.median(py)
print(f"| {a} | {c:.1f} ({', '.join(f'{x:.1f}' for x in cpp)}) | {p:.1f} ({', '.join(f'{x:.1f}' for x in py)}) | {c / p:.2f} |")
PY
done

#!/bin/bash
# The broken-symmetry rate of SAS, the exact GPLVM and kernel PCA on the rotating-pattern cycle
# (gplvm generate --kind cycle, the COIL-20 stand-in: one object, 72 rotations), beside the published
# rates on COIL-20 (docs/math/symmetry.md). One gplvm sweep per method into OUT/<method>/, then a table
# of rates over every model of a method, and the barcode (scripts/plot_barcode.py).
#
#   scripts/symmetry_study.sh [OUT]          # default OUT = results/symmetry_study
# Environment:
#   GPLVM     the executable (default build/gplvm)
#   RANKS     MPI ranks (default 2); models are trained one per rank (--ranks-per-model 1)
#   SEEDS     models per cell (default 30, the published count)
#   DATA      a data file instead of the generated cycle (e.g. scripts/make_rotated_images.py output)
#   GRAPH     symmetry options for the data (default: one cycle over all rows; for rotated digits
#             "--objects labels")
#   SAS_EPOCHS, EXACT_ITERATIONS   training lengths (defaults 200 and 500)
# Each method's sweep is skipped when its table exists (delete OUT/<method> to redo it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-results/symmetry_study}
gplvm=${GPLVM:-$here/build/gplvm}
ranks=${RANKS:-2}
seeds=${SEEDS:-30}
graph=${GRAPH:-}
sas_epochs=${SAS_EPOCHS:-200}
exact_iterations=${EXACT_ITERATIONS:-500}
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$out"
out=$(cd "$out" && pwd)
data=${DATA:-$out/cycle.h5}
[ -e "$data" ] || "$gplvm" generate --kind cycle --n 72 --d 256 --seed 0 --output "$data"
seed_list=$(seq -s, 0 $((seeds - 1)))

# Initial theta0 and sigma0^2 (the published GPLVM's axes), 2 x 2 cells of SEEDS models each.
cat > "$out/gplvm_grid.toml" <<TOML
[train]
seed = [$seed_list]
[model]
kernel_variance = [0.5, 2.0]
noise_variance = [0.01, 0.1]
TOML
cat > "$out/sas.toml" <<TOML
[data]
path = "$data"
[model]
kind = "sas"
lengthscale = 1.0
fixed_hyperparameters = ["lengthscale_0", "lengthscale_1"]
encoder_hidden = [64, 32]
[sas]
batch_size = 32
active_size = 16
[train]
epochs = $sas_epochs
learning_rate = 0.01
tolerance = 0.0
TOML
cat > "$out/exact.toml" <<TOML
[data]
path = "$data"
[model]
kind = "exact"
init = "random"
lengthscale = 1.0
fixed_hyperparameters = ["lengthscale_0", "lengthscale_1"]
[exact]
max_iterations = $exact_iterations
TOML
# Kernel PCA is deterministic: its models differ by the kernel width, lambda = 2 l^2 over a log grid of
# SEEDS values around scikit-learn's default l = sqrt(D / 2).
cat > "$out/kpca.toml" <<TOML
[data]
path = "$data"
[model]
kind = "probdr"
[probdr]
method = "kpca"
TOML
lengthscales=$(/usr/bin/python3 -c "
import numpy as np, h5py
d = h5py.File('$data', 'r')['/Y'].shape[1]
print(', '.join(repr(float(v)) for v in np.sqrt(d / 2) * np.logspace(-1, 1, $seeds)))")
printf '[probdr]\nkernel_lengthscale = [%s]\n' "$lengthscales" > "$out/kpca_grid.toml"

run_sweep() {  # method config grid
  local method=$1 config=$2 grid=$3
  if [ -e "$out/$method/symmetry.csv" ]; then
    echo "$method: $out/$method/symmetry.csv exists, skipped" >&2
    return
  fi
  local start=$SECONDS
  # shellcheck disable=SC2086
  mpirun -n "$ranks" --oversubscribe "$gplvm" sweep --config "$config" --grid "$grid" --output "$out/$method" \
    $graph --json > "$out/$method.json" 2> "$out/$method.log"
  echo "$method: $((SECONDS - start)) s" >&2
}
run_sweep sas "$out/sas.toml" "$out/gplvm_grid.toml"
run_sweep exact "$out/exact.toml" "$out/gplvm_grid.toml"
run_sweep kpca "$out/kpca.toml" "$out/kpca_grid.toml"

/usr/bin/python3 - "$out" <<'PY'
import csv, os, sys
out = sys.argv[1]
published = {"sas": "65.48 % (GPLVM)", "exact": "65.48 % (GPLVM)", "kpca": "42.0 %"}
print("| method | models | failed | outcomes | broken | rate | mean B_max | published (COIL-20) |")
print("|---|---|---|---|---|---|---|---|")
for method in ("sas", "exact", "kpca"):
    path = os.path.join(out, method, "symmetry.csv")
    if not os.path.exists(path):
        continue
    rows = list(csv.DictReader(open(path)))
    ok = [r for r in rows if not r["error"]]
    outcomes = sum(int(r["objects"]) for r in ok)
    broken = sum(int(r["broken_objects"]) for r in ok)
    mean = sum(float(r["b_max"]) for r in ok) / max(len(ok), 1)
    rate = 100.0 * broken / outcomes if outcomes else float("nan")
    print(f"| {method} | {len(rows)} | {len(rows) - len(ok)} | {outcomes} | {broken} | {rate:.2f} % | {mean:.3g} | {published[method]} |")
PY
/usr/bin/python3 "$here/scripts/plot_barcode.py" --sweep "$out/sas" "$out/exact" "$out/kpca" \
  --pool --output "$out/barcode.png" >&2 || true

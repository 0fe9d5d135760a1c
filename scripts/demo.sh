#!/usr/bin/env bash
# `make demo`: Fashion-MNIST through the whole pipeline on 2 MPI ranks.
#   import (IDX.gz -> HDF5) -> gplvm train (SAS, configs/demo_fashion_mnist.toml) -> latent and
#   curve PNGs -> gplvm evaluate: encodes the test set, prints the 1-NN accuracy of the test latents
#   against the training latents and the exact-GP predictive RMSE/MAE/NLPD per pixel.
# Writes results/demo/. Usage: scripts/demo.sh [BUILD_DIR] (the Makefile has built it already).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
gplvm="$build/gplvm"
out=results/demo
fmnist=/usr/share/datasets/fashion-mnist

bash scripts/install-deps.sh --with-demo
mpi_flags=()
if [ "$(id -u)" -eq 0 ]; then mpi_flags+=(--allow-run-as-root); fi
export OPENBLAS_NUM_THREADS=1   # one BLAS thread per rank: the ranks share the cores
# Where OpenBLAS does not recognise the CPU, the kernels gplvm advises instead of its slow fallback.
coretype=$(scripts/openblas_coretype.sh "$gplvm")
if [ -n "$coretype" ]; then export OPENBLAS_CORETYPE=$coretype; fi
mkdir -p "$out"

for split in train t10k; do
  name=$([ "$split" = train ] && echo train || echo test)
  if [ ! -f "$out/fashion_mnist_$name.h5" ]; then
    "$gplvm" import --input "$fmnist/$split-images-idx3-ubyte.gz" --labels "$fmnist/$split-labels-idx1-ubyte.gz" \
      --scale 1/255 --float32 --output "$out/fashion_mnist_$name.h5"
  fi
done

rm -rf "$out/run.h5.checkpoints"
# Each demo trains afresh, replacing the previous run file.
mpirun -n 2 "${mpi_flags[@]}" "$gplvm" train --config configs/demo_fashion_mnist.toml --force "$@"
# Fashion-MNIST's IDX files name no classes: the legend takes their names from the plot script.
/usr/bin/python3 tools/plot_run.py "$out/run.h5" --out-dir "$out" --class-names fashion_mnist --gplvm "$gplvm"
mpirun -n 2 "${mpi_flags[@]}" "$gplvm" evaluate --run "$out/run.h5" --test "$out/fashion_mnist_test.h5" \
  --output "$out/evaluation.h5"
echo "results in $out/: run.h5, evaluation.h5 (test latents, predictive, metrics), latents.png, curve.png"

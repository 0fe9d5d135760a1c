#!/usr/bin/env bash
# Installs the Debian 12 packages gplvm-hpc needs, only those that are missing.
# Idempotent: a second run on a provisioned machine installs nothing and makes no network call.
# Usage: scripts/install-deps.sh [--with-demo] [--with-slurm] [--with-torch] [--with-profiler]
# (--with-torch: the PyTorch baseline in bench/; --with-profiler: linux-perf for the profiles in
# docs/benchmarks.md.)
# (--with-slurm is a no-op kept for old callers: slurm-wlm is in the default list.)
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libopenmpi-dev openmpi-bin
  libscalapack-openmpi-dev libhdf5-openmpi-dev
  libeigen3-dev petsc-dev slepc-dev libopenblas-dev liblapack-dev
  libgtest-dev libtomlplusplus-dev zlib1g-dev
  libhnswlib-dev slepc-dev libfftw3-dev
  python3-numpy python3-h5py python3-matplotlib python3-scipy python3-sklearn python3-pip
  nlohmann-json3-dev ccache
  slurm-wlm
)
for arg in "$@"; do
  case "$arg" in
    --with-demo) packages+=(dataset-fashion-mnist) ;;
    --with-slurm) ;;   # kept for compatibility: slurm-wlm is now always installed (jobs/, tests/jobs/)
    --with-torch) packages+=(python3-torch) ;;
    --with-profiler) packages+=(linux-perf) ;;
    *) echo "install-deps.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# Prints the OPENBLAS_CORETYPE a run on this machine should have, for scripts that start gplvm and
# other users of Debian's OpenBLAS (NumPy, scikit-learn, PyTorch): the value already set, else the
# kernels gplvm advises where OpenBLAS 0.3.21 does not recognise the CPU and falls back to slower
# ones (an Intel Xeon of 2023 runs its SSE3 kernels, 3-5x slower; src/linalg/blas_kernels.cpp),
# else nothing. The advice is gplvm's own (`gplvm --openblas-coretype`), so it is made in one place.
#   usage: scripts/openblas_coretype.sh [GPLVM]   (default build/gplvm; none built: prints nothing)
#   in a script:  coretype=$(scripts/openblas_coretype.sh "$gplvm")
#                 if [ -n "$coretype" ]; then export OPENBLAS_CORETYPE=$coretype; fi
set -euo pipefail
if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
  echo "$OPENBLAS_CORETYPE"
  exit 0
fi
gplvm=${1:-"$(dirname "$0")/../build/gplvm"}
if [ ! -x "$gplvm" ]; then exit 0; fi
coretype=$("$gplvm" --openblas-coretype)
if [ -n "$coretype" ]; then
  echo "note: OpenBLAS does not recognise this CPU and would run slower kernels; using OPENBLAS_CORETYPE=$coretype" >&2
fi
echo "$coretype"

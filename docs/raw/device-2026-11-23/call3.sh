# Device call 3: pdpotrf against the process-grid shape; SAS training scaling 1-16 ranks; the
# C++ step against this machine's PyTorch (pip build, MKL) on one core.
source .devbundle/setup.sh
G=/opt/g
B="$G/bin/bench_exact --n 12000 --repeats 1 --skip-gradient --skip-lapack"
echo "== pdpotrf N=12000 NB=96 by grid"
for pg in 2:1:2 2:2:1 4:1:4 4:4:1 4:2:2 8:1:8 8:2:4 8:4:2 16:2:8 16:4:4; do IFS=: read P r c <<< "$pg"
  printf "P=$P grid ${r}x$c: "; timeout 60 mpirun -n $P --bind-to core $B --grid-rows $r --grid-cols $c | grep "^pdpotrf" | cut -c20-; done
printf "P=4 2x2 yield_when_idle: "; timeout 60 mpirun -n 4 --bind-to core --mca mpi_yield_when_idle 1 $B --grid-rows 2 --grid-cols 2 | grep "^pdpotrf" | cut -c20-
printf "P=4 2x2 NB=256: "; timeout 60 mpirun -n 4 --bind-to core $B --grid-rows 2 --grid-cols 2 --block 256 | grep "^pdpotrf" | cut -c20-
echo "== SAS training scaling"
timeout 260 python3 scripts/scaling_study.py --gplvm $G/bin/gplvm --out /tmp/scaling --ranks 1,2,4,8,16 --n 100000 --d 784 --steps 30 --repeats 2 2>&1 | tail -14
cp /tmp/scaling/scaling.csv $OUT/ 2>/dev/null
echo "== C++ vs pip PyTorch (MKL), one core"
timeout 200 python3 bench/compare_pytorch.py --build $G/build --python python3 --quick --repeats 2 --raw $OUT/pytorch_raw.jsonl 2>&1 | tail -14

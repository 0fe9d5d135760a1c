# Device call 1: machine facts, pdpotrf against dpotrf x ranks at 4-16 ranks (block sweep), and the
# N = 40,000 exact check at 16 ranks on two process grids.
source .devbundle/setup.sh
G=/opt/g
echo "== machine"; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node|L1d|L2|L3|MHz|Flags" | cut -c1-160
lscpu | grep -o "avx512[a-z_]*\|amx[a-z_]*" | sort -u | tr '\n' ' '; echo
free -g | head -2; cat /etc/os-release | head -2; ldd --version | head -1
echo "== mpi smoke"; which mpirun; mpirun --version | head -1; ldd $G/bin/bench_exact | grep -E "mpi|blas";  timeout 60 mpirun -n 4 --bind-to core $G/bin/bench_exact --n 1000 --repeats 1 --skip-gradient > /tmp/smoke 2>&1; r=$?; tail -8 /tmp/smoke; [ $r = 0 ] || exit 1
echo "== gemm rates (1 thread)"; timeout 60 $G/bin/bench_kernels 2>&1 | tail -25
for P in 16 8 4; do
  echo "== pdpotrf P=$P N=20000 NB=96 with dpotrf"
  timeout 200 mpirun -n $P --bind-to core $G/bin/bench_exact --n 20000 --block 96 --repeats 1 --skip-gradient 2>&1 | grep -v "^$"
  [ $P = 4 ] && continue
  for NB in 64 128 192 96; do
    echo "== pdpotrf P=$P N=20000 NB=$NB"
    timeout 120 mpirun -n $P --bind-to core $G/bin/bench_exact --n 20000 --block $NB --repeats 1 --skip-gradient --skip-lapack 2>&1 | grep -E "config|pdpotrf|LML|RSS"
  done
done
echo "== N=40000 exact check"
W=/tmp/w40k; mkdir -p $W
timeout 120 mpirun -n 16 --bind-to core $G/bin/gplvm generate --kind gp_rff --n 40000 --d 784 --float32 --output $W/d.h5 --json | tail -1
printf '[data]\npath = "%s"\n[sas]\nbatch_size = 1024\nactive_size = 200\n[train]\nepochs = 100\nmax_steps = 50\n[output]\npath = "%s"\n' $W/d.h5 $W/run.h5 > $W/c.toml
timeout 120 mpirun -n 16 --bind-to core $G/bin/gplvm train --config $W/c.toml --json | tail -1
for grid in 4x4 2x8; do
  echo "-- grid $grid"

  timeout 240 mpirun -n 16 --bind-to core $G/bin/gplvm exact --run $W/run.h5 --grid $grid --json 2>&1 | tail -3
done

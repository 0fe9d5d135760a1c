# Device call 2: why pdpotrf scales badly here (cores shared? MPI transport?), then N = 40,000.
source .devbundle/setup.sh
G=/opt/g
echo "== topology"; for c in 0 1 2 8; do echo "cpu$c siblings $(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list 2>/dev/null) core $(cat /sys/devices/system/cpu/cpu$c/topology/core_id 2>/dev/null)"; done
nproc; cat /proc/cpuinfo | grep -m1 "model\s*:"; ompi_info 2>/dev/null | grep -E "MCA (pml|btl)" | cut -c1-80
cat > /tmp/g.py <<'PY'
import numpy as np, time
n = 2000; a = np.random.rand(n, n); b = np.random.rand(n, n); a @ b
t = time.perf_counter()
for _ in range(10): a @ b
print(f"{2 * n**3 * 10 / (time.perf_counter() - t) / 1e9:.0f}")
PY
echo "== concurrent DGEMM copies (numpy, 1 thread each), GFLOP/s per copy"
for k in 1 2 4 8 16; do
  for c in $(seq 0 $((k-1))); do OPENBLAS_NUM_THREADS=1 taskset -c $c python3 /tmp/g.py > /tmp/g$c.txt & done; wait
  echo "k=$k: $(cat /tmp/g*.txt | head -$k | tr '\n' ' ')"; rm -f /tmp/g*.txt
done
B="$G/bin/bench_exact --n 12000 --repeats 1 --skip-gradient --skip-lapack"
echo "== pdpotrf P=4 N=12000: default | ob1+vader | vader no single-copy | spread cpus"
timeout 60 mpirun -n 4 --bind-to core $B | grep "^pdpotrf"
timeout 60 mpirun -n 4 --bind-to core --mca pml ob1 --mca btl self,vader $B | grep "^pdpotrf"
timeout 60 mpirun -n 4 --bind-to core --mca pml ob1 --mca btl self,vader --mca btl_vader_single_copy_mechanism none $B | grep "^pdpotrf"
timeout 60 mpirun -n 4 --bind-to core --cpu-set 0,4,8,12 $B | grep "^pdpotrf"
timeout 60 mpirun -n 1 $G/bin/bench_exact --n 12000 --repeats 1 --skip-gradient | grep -E "^pdpotrf|^dpotrf"
echo "== N=40000 exact, 16 ranks"
W=/tmp/w40k; mkdir -p $W
timeout 120 mpirun -n 16 --bind-to core $G/bin/gplvm generate --kind gp_rff --n 40000 --d 784 --float32 --output $W/d.h5 --json | tail -1
printf '[data]\npath = "%s"\n[sas]\nbatch_size = 1024\nactive_size = 200\n[train]\nepochs = 100\nmax_steps = 50\n[output]\npath = "%s"\n' $W/d.h5 $W/run.h5 > $W/c.toml
timeout 120 mpirun -n 16 --bind-to core $G/bin/gplvm train --config $W/c.toml --json | tail -1
timeout 300 mpirun -n 16 --bind-to core $G/bin/gplvm exact --run $W/run.h5 --json 2>&1 | tail -3

# Device call 4: pdpotrf against the grid shape at N = 20,000 (confirmation of call 3 at N = 12,000).
source .devbundle/setup.sh
G=/opt/g
B="$G/bin/bench_exact --n 20000 --repeats 1 --skip-gradient"
for pg in 16:2:8:lapack 16:1:16: 16:4:4: 8:1:8: 8:2:4: 4:1:4: 4:2:2:; do IFS=: read P r c l <<< "$pg"
  S="--skip-lapack"; [ "$l" = lapack ] && S=""
  echo "== P=$P grid ${r}x$c"; timeout 100 mpirun -n $P --bind-to core $B $S --grid-rows $r --grid-cols $c | grep -E "^pdpotrf|^dpotrf|LML"; done

# Device call 5: fp32 free-latent step with subnormals flushed (default) and kept, C++ and PyTorch.
G=/opt/m; mkdir -p $G && tar -C $G -xJf .devbundle/mini.tar.xz
export LD_LIBRARY_PATH=$G/lib OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_CORETYPE=Cooperlake OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in 1 2; do
  for k in "" "--keep-denormals"; do for f in "--free" ""; do
    echo "C++ fp32 $f $k: $(timeout 30 $G/bin/bench_sas_step --float32 $f $k --json --rounds 4 --active 200 | grep -o '"ms_per_step": [0-9.]*')"
  done; done
  for k in "" "--keep-denormals"; do
    echo "PyTorch fp32 --free $k: $(timeout 30 python3 bench/pytorch_sas.py --dtype float32 --free $k --steps 8 --active 200 | grep -o '"ms_per_step": [0-9.]*')"
  done
done

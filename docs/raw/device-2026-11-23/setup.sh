# Unpacks the Debian 12 runtime (ScaLAPACK, HDF5, OpenBLAS, PETSc and their libraries) and the
# gplvm binaries built on the development VM onto a bare device machine. The machine's own Open MPI
# (Ubuntu's 4.1.x, ABI-compatible with Debian's 4.1.4) launches them: its libmpi and components
# replace the carried ones.
set -e
G=/opt/g
if [ ! -x $G/bin/gplvm ]; then
  mkdir -p $G
  if ! tar -C $G -xJf .devbundle/bundle.tar.xz 2>/dev/null; then
    python3 -c "import tarfile; tarfile.open('.devbundle/bundle.tar.xz').extractall('$G')"
  fi
fi
for l in libmpi.so.40 libmpi_cxx.so.40 libmpi_mpifh.so.40 libopen-pal.so.40 libopen-rte.so.40 libpmix.so.2 \
           libhwloc.so.15 libevent_core-2.1.so.7 libevent_pthreads-2.1.so.7 libevent-2.1.so.7 \
         libstdc++.so.6 libgcc_s.so.1 libgfortran.so.5 libquadmath.so.0 libgomp.so.1; do
  if ldconfig -p | grep -q "$l "; then rm -f $G/lib/$l; else echo "setup: no system $l, carried one kept"; fi
done
if [ ! -e $G/build/gplvm ]; then
  mkdir -p $G/mpibin && cp $G/sys/usr/bin/orterun $G/mpibin/ && ln -sf orterun $G/mpibin/mpirun
  mkdir -p $G/build/bench && for b in bench_exact bench_sas_step bench_kernels; do ln -sf $G/bin/$b $G/build/bench/$b; done
  ln -sf $G/bin/gplvm $G/build/gplvm
fi
export LD_LIBRARY_PATH=$G/lib PATH=$G/mpibin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
# OpenBLAS 0.3.21 does not recognise this CPU and falls back to Prescott's SSE3 kernels.
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Cooperlake}
set +e

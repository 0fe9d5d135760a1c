# Dense and distributed linear algebra: Eigen (header-only, with OpenBLAS as its GEMM/TRSM backend),
# OpenBLAS + LAPACK, ScaLAPACK (OpenMPI build), PETSc (TAO).
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/GplvmRequirePackage.cmake)
gplvm_require_pkgconfig(eigen3 eigen3 libeigen3-dev)
gplvm_require_pkgconfig(openblas openblas libopenblas-dev)
gplvm_require_pkgconfig(lapack lapack liblapack-dev)
gplvm_require_pkgconfig(scalapack scalapack-openmpi libscalapack-openmpi-dev)
gplvm_require_pkgconfig(petsc PETSc petsc-dev)

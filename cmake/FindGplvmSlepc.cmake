# SLEPc (the eigensolvers on PETSc's matrices: Krylov-Schur for the graph Laplacians' extreme
# eigenpairs). Debian's slepc-dev installs slepc.pc; where SLEPC_DIR names another installation,
# its lib/pkgconfig is searched first.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/GplvmRequirePackage.cmake)
if(DEFINED ENV{SLEPC_DIR})
  set(ENV{PKG_CONFIG_PATH} "$ENV{SLEPC_DIR}/lib/pkgconfig:$ENV{PKG_CONFIG_PATH}")
endif()
gplvm_require_pkgconfig(slepc slepc slepc-dev)

# OpenMPI (C and C++ bindings are not used: the C API only).
include_guard(GLOBAL)
find_package(MPI QUIET COMPONENTS C)
if(NOT MPI_C_FOUND)
  message(FATAL_ERROR "gplvm-hpc needs OpenMPI and it was not found.\n"
                      "Install the Debian packages 'libopenmpi-dev openmpi-bin' "
                      "or run scripts/install-deps.sh.")
endif()
if(NOT MPIEXEC_EXECUTABLE)
  message(FATAL_ERROR "mpirun not found: install the Debian package 'openmpi-bin'.")
endif()
add_library(gplvm::mpi INTERFACE IMPORTED GLOBAL)
target_link_libraries(gplvm::mpi INTERFACE MPI::MPI_C)
# C API only: keep <mpi.h> from dragging in the deprecated C++ bindings (and their library).
target_compile_definitions(gplvm::mpi INTERFACE OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
message(STATUS "gplvm-hpc: MPI ${MPI_C_VERSION}, launcher ${MPIEXEC_EXECUTABLE}")

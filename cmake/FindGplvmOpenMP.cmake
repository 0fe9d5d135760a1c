# OpenMP for the threads within a rank (include/gplvm/core/threads.hpp). GCC's runtime, libgomp,
# comes with the compiler (build-essential), so this fails only with a compiler without OpenMP.
include_guard(GLOBAL)
find_package(OpenMP QUIET COMPONENTS CXX)
if(NOT OpenMP_CXX_FOUND)
  message(FATAL_ERROR "gplvm-hpc needs a C++ compiler with OpenMP (GCC's libgomp: Debian package "
                      "build-essential / libgomp1) for its threads within a rank.")
endif()

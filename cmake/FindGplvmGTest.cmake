# GoogleTest from Debian's libgtest-dev (compiled libraries and CMake config under /usr/lib).
include_guard(GLOBAL)
find_package(GTest CONFIG QUIET)
if(NOT GTest_FOUND)
  message(FATAL_ERROR "gplvm-hpc's tests need GoogleTest: install the Debian package 'libgtest-dev' "
                      "or run scripts/install-deps.sh (or configure with -DGPLVM_BUILD_TESTS=OFF).")
endif()
include(GoogleTest)

# FFTW 3 (double precision), for the interpolated t-SNE repulsion's convolutions (src/probdr).
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/GplvmRequirePackage.cmake)
gplvm_require_pkgconfig(fftw3 fftw3 libfftw3-dev)

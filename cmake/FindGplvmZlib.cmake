# zlib for `gplvm import`: MNIST and Fashion-MNIST are distributed as gzipped IDX files.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/GplvmRequirePackage.cmake)
gplvm_require_pkgconfig(zlib zlib zlib1g-dev)

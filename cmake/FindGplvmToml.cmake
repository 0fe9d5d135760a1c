# toml++ (TOML v1.0 parser with line/column diagnostics) for configuration files.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/GplvmRequirePackage.cmake)
gplvm_require_pkgconfig(tomlplusplus tomlplusplus libtomlplusplus-dev)

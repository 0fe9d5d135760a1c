# gplvm_require_pkgconfig(<target-name> <pkg-config-module> <debian-package>)
# Finds a pkg-config module and exposes it as the imported target gplvm::<target-name>.
# On failure it stops configuration with a message that names the Debian package to install,
# because "could not find X" alone does not tell a user on a fresh machine what to do.
include_guard(GLOBAL)
find_package(PkgConfig QUIET)
if(NOT PKG_CONFIG_FOUND)
  message(FATAL_ERROR "pkg-config not found: install the Debian package 'pkg-config' "
                      "(or run scripts/install-deps.sh)")
endif()

function(gplvm_require_pkgconfig target module debian_package)
  pkg_check_modules(GPLVM_PC_${target} QUIET IMPORTED_TARGET GLOBAL ${module})
  if(NOT GPLVM_PC_${target}_FOUND)
    message(FATAL_ERROR
      "gplvm-hpc needs ${target} (pkg-config module '${module}') and it was not found.\n"
      "Install the Debian package '${debian_package}': apt-get install ${debian_package}\n"
      "or run scripts/install-deps.sh, which installs everything the project needs.")
  endif()
  add_library(gplvm::${target} INTERFACE IMPORTED GLOBAL)
  target_link_libraries(gplvm::${target} INTERFACE PkgConfig::GPLVM_PC_${target})
  message(STATUS "gplvm-hpc: ${target} ${GPLVM_PC_${target}_VERSION} (${module})")
endfunction()

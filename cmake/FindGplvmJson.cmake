# nlohmann-json (header only) for the JSON the commands print (--json) and Config::to_json().
include_guard(GLOBAL)
find_package(nlohmann_json 3.11 CONFIG QUIET)
if(NOT nlohmann_json_FOUND)
  message(FATAL_ERROR
    "gplvm-hpc needs nlohmann-json (CMake package 'nlohmann_json' 3.11 or later) and it was not found.\n"
    "Install the Debian package 'nlohmann-json3-dev': apt-get install nlohmann-json3-dev\n"
    "or run scripts/install-deps.sh, which installs everything the project needs.")
endif()
add_library(gplvm::nlohmann_json INTERFACE IMPORTED GLOBAL)
target_link_libraries(gplvm::nlohmann_json INTERFACE nlohmann_json::nlohmann_json)
message(STATUS "gplvm-hpc: nlohmann_json ${nlohmann_json_VERSION}")

# One static library per layer of src/, linked only downward, and an include check the compiler
# enforces: layer L is compiled against an include root that holds the headers of L and of the
# layers below it and nothing else (a folder of links, ${CMAKE_BINARY_DIR}/layers/L/gplvm/<layer>
# -> include/gplvm/<layer>). An #include of a higher layer's header fails to build, naming the
# file, instead of being caught in review.
#
#   gplvm_layer(NAME name DEPS lower layers... [LIBS external targets...])
#
# Layers must be declared bottom-up. Each gets target gplvm_<name>; the target `gplvm` (an
# interface library) links all of them for the executables, tests and benchmarks.
set(GPLVM_LAYERS "")

# The external headers nearly every source file includes, parsed once per build instead of once
# per file: Eigen alone is half the compile time of a small source file. The first layer
# precompiles them and every other target reuses its copy (gplvm_reuse_precompiled_headers);
# the flags are the same build-wide, which GCC requires of a reused header.
set(GPLVM_PRECOMPILED <algorithm> <cmath> <cstdint> <cstdio> <functional> <limits> <memory> <numbers>
                      <optional> <string> <utility> <vector> <Eigen/Dense> <mpi.h>)

function(gplvm_reuse_precompiled_headers target from)
  if(GPLVM_PRECOMPILED_HEADERS)
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()

function(gplvm_layer)
  cmake_parse_arguments(L "" "NAME" "DEPS;LIBS" ${ARGN})
  # The layers visible from this one: itself and everything its dependencies see.
  set(visible ${L_NAME})
  foreach(dep ${L_DEPS})
    if(NOT dep IN_LIST GPLVM_LAYERS)
      message(FATAL_ERROR "layer '${L_NAME}' depends on '${dep}', which is not declared below it")
    endif()
    list(APPEND visible ${GPLVM_LAYER_VISIBLE_${dep}})
  endforeach()
  list(REMOVE_DUPLICATES visible)
  set(GPLVM_LAYER_VISIBLE_${L_NAME} ${visible} PARENT_SCOPE)

  set(root ${CMAKE_BINARY_DIR}/layers/${L_NAME})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root}/gplvm)
  foreach(layer ${visible})
    if(EXISTS ${PROJECT_SOURCE_DIR}/include/gplvm/${layer})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/gplvm/${layer} ${root}/gplvm/${layer} SYMBOLIC)
    endif()
  endforeach()

  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${L_NAME}/*.cpp)
  add_library(gplvm_${L_NAME} STATIC ${sources})
  target_include_directories(gplvm_${L_NAME} PUBLIC $<BUILD_INTERFACE:${root}>)
  # Private headers of the layer (src/<layer>/*.hpp) are included by their plain names.
  target_include_directories(gplvm_${L_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/src/${L_NAME})
  foreach(dep ${L_DEPS})
    target_link_libraries(gplvm_${L_NAME} PUBLIC gplvm_${dep})
  endforeach()
  target_link_libraries(gplvm_${L_NAME} PUBLIC gplvm_common ${L_LIBS})
  if(GPLVM_LAYERS STREQUAL "")
    if(GPLVM_PRECOMPILED_HEADERS)
      target_precompile_headers(gplvm_${L_NAME} PRIVATE ${GPLVM_PRECOMPILED})
    endif()
  else()
    list(GET GPLVM_LAYERS 0 first)
    gplvm_reuse_precompiled_headers(gplvm_${L_NAME} gplvm_${first})
  endif()

  set(layers ${GPLVM_LAYERS})
  list(APPEND layers ${L_NAME})
  set(GPLVM_LAYERS ${layers} PARENT_SCOPE)
endfunction()

# gg_add_sim_module(NAME SOURCES... [OUTPUT_DIRECTORY DIR]): a module image
# for gpuguard's simulated driver, i.e. a shared object of host C kernels
# (see gpuguard/sim_kernel.h), written as DIR/NAME.so (default:
# ${CMAKE_BINARY_DIR}/kernels). Load it with gg_module_create_from_file.
#
# One definition for the source tree (cmake/GgHelpers.cmake includes it)
# and for an installed gpuguard (find_package(gpuguard) includes it): the
# headers come from the gpuguard::gpuguard target's include directories,
# which is either tree's. The module does not link libgpuguard: the
# simulated driver loads it, and it calls nothing but its runtime table.
function(gg_add_sim_module name)
  cmake_parse_arguments(M "" "OUTPUT_DIRECTORY" "" ${ARGN})
  if(NOT M_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gg_add_sim_module(${name}): no source files")
  endif()
  if(NOT M_OUTPUT_DIRECTORY)
    set(M_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/kernels)
  endif()
  add_library(${name} MODULE ${M_UNPARSED_ARGUMENTS})
  target_include_directories(${name} PRIVATE
    $<TARGET_PROPERTY:gpuguard::gpuguard,INTERFACE_INCLUDE_DIRECTORIES>)
  # PREFIX "": the file is NAME.so, the name the examples load.
  set_target_properties(${name} PROPERTIES PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY ${M_OUTPUT_DIRECTORY}
    C_VISIBILITY_PRESET hidden)
endfunction()

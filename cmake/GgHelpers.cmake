# gg_add_sim_module(NAME SOURCES...): a simulator kernel module, written to
# build/kernels/NAME.so; the same function is installed with the package.
include(${CMAKE_CURRENT_LIST_DIR}/GgSimModule.cmake)

# gg_use_criterion(TARGET SCOPE): TARGET's sources include Criterion's
# headers; link libcriterion. Criterion cannot start under ThreadSanitizer
# (gcc: "Could not initialize inheritable arena", clang: a SEGV in
# libcriterion), so a GG_SANITIZE=thread build gets a stand-in instead:
# tests/support/tsan_criterion, first in the include path (its
# criterion/*.h), with its runner compiled into each test executable.
function(gg_use_criterion target scope)
  if(GG_SANITIZE MATCHES "thread")
    target_include_directories(${target} BEFORE ${scope}
      ${PROJECT_SOURCE_DIR}/tests/support/tsan_criterion)
  else()
    target_link_libraries(${target} ${scope} ${CRITERION_LIBRARY})
  endif()
endfunction()

# gg_add_criterion_test(NAME SOURCES... [LIBS libs...] [LAUNCHER cmd...]):
# one Criterion executable in build/bin, registered with ctest; LAUNCHER, if
# given, is the command ctest runs it through (it gets the executable and
# its arguments).
function(gg_add_criterion_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;LAUNCHER" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  gg_use_criterion(${name} PRIVATE)
  if(GG_SANITIZE MATCHES "thread")
    target_sources(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support/tsan_criterion/mini_criterion.c)
  endif()
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include
    ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE Threads::Threads ${CMAKE_DL_LIBS} ${T_LIBS})
  target_compile_definitions(${name} PRIVATE
    GG_TEST_BUILD_DIR="${CMAKE_BINARY_DIR}"
    GG_TEST_KERNEL_DIR="${CMAKE_BINARY_DIR}/kernels"
    GG_TEST_LIB_DIR="${CMAKE_LIBRARY_OUTPUT_DIRECTORY}"
    GG_TEST_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}")
  # --jobs 1: Criterion forks one process per test; tests that time waits
  # must not fight over two cores with each other. (The TSan stand-in runs
  # tests one at a time and ignores the option.)
  if(T_LAUNCHER)
    add_test(NAME ${name} COMMAND ${T_LAUNCHER} $<TARGET_FILE:${name}> --jobs=1 --verbose=0)
  else()
    add_test(NAME ${name} COMMAND ${name} --jobs=1 --verbose=0)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT 900)
endfunction()

# Adds every immediate subdirectory of `dir` that has a CMakeLists.txt.
function(gg_add_subdirectories dir)
  file(GLOB children RELATIVE ${dir} CONFIGURE_DEPENDS ${dir}/*/CMakeLists.txt)
  list(SORT children)
  foreach(child ${children})
    get_filename_component(sub ${child} DIRECTORY)
    add_subdirectory(${dir}/${sub})
  endforeach()
endfunction()

# gg_add_gpu_kernel_images(NAME SOURCE TARGET): the examples' kernels for real
# GPUs, from one .cu source, into build/kernels/: NAME.ptx with nvcc (CUDA
# toolkit at /usr/local/cuda) and NAME.hsaco with hipcc (ROCm / Debian's
# hipcc), each only when its compiler is found and GG_EXAMPLE_PTX is on;
# without nvcc, the PTX committed as kernels/NAME.ptx beside the source.
# compute_75 is the oldest architecture CUDA 13 targets (the driver JIT-
# compiles PTX for the GPU it finds); the HIP code object is built for
# GG_HIP_ARCHS (gfx targets; a code object is not JIT-compiled).
find_program(GG_NVCC nvcc PATHS /usr/local/cuda/bin NO_DEFAULT_PATH)
find_program(GG_HIPCC hipcc PATHS /opt/rocm/bin /usr/bin)
set(GG_HIP_ARCHS "gfx900;gfx906;gfx908;gfx90a;gfx1030" CACHE STRING "HIP code object targets for the examples")
function(gg_add_gpu_kernel_images name source target)
  if(NOT GG_EXAMPLE_PTX)
    return()
  endif()
  set(src ${CMAKE_CURRENT_SOURCE_DIR}/${source})
  set(outputs)
  if(GG_NVCC)
    set(ptx ${CMAKE_BINARY_DIR}/kernels/${name}.ptx)
    add_custom_command(OUTPUT ${ptx}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/kernels
      COMMAND ${GG_NVCC} -ptx -arch=compute_75 -o ${ptx} ${src}
      DEPENDS ${src} COMMENT "nvcc: ${source} -> kernels/${name}.ptx" VERBATIM)
    list(APPEND outputs ${ptx})
  elseif(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/kernels/${name}.ptx)
    # No toolkit: the PTX nvcc made, committed beside the source
    # (scripts/gen-ptx-fixtures.sh regenerates it), so that the simulator
    # runs the real kernel on machines without nvcc too.
    set(ptx ${CMAKE_BINARY_DIR}/kernels/${name}.ptx)
    add_custom_command(OUTPUT ${ptx}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/kernels
      COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_CURRENT_SOURCE_DIR}/kernels/${name}.ptx ${ptx}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/kernels/${name}.ptx
      COMMENT "kernels/${name}.ptx (committed; no nvcc)" VERBATIM)
    list(APPEND outputs ${ptx})
  endif()
  if(GG_HIPCC)
    set(hsaco ${CMAKE_BINARY_DIR}/kernels/${name}.hsaco)
    set(arch_flags)
    foreach(arch ${GG_HIP_ARCHS})
      list(APPEND arch_flags --offload-arch=${arch})
    endforeach()
    add_custom_command(OUTPUT ${hsaco}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/kernels
      COMMAND ${GG_HIPCC} --genco ${arch_flags} -x hip -include hip/hip_runtime.h -o ${hsaco} ${src}
      DEPENDS ${src} COMMENT "hipcc: ${source} -> kernels/${name}.hsaco" VERBATIM)
    list(APPEND outputs ${hsaco})
  endif()
  if(outputs)
    add_custom_target(${name}_gpu_images ALL DEPENDS ${outputs})
    add_dependencies(${target} ${name}_gpu_images)
  endif()
endfunction()

# gg_sanitizer_runtime(OUT): the shared sanitizer runtime of this build
# (GG_SANITIZE) for the compiler in use, to preload into an unsanitized
# program (python) that loads our sanitized libraries; "" when there is none.
# gcc's is libasan.so / libtsan.so; clang's is libclang_rt.asan-ARCH.so /
# libclang_rt.tsan-ARCH.so, which also holds the UBSan handlers clang's
# objects call (gcc's libasan does not).
function(gg_sanitizer_runtime out)
  set(path "")
  if(GG_SANITIZE MATCHES "address|thread")
    if(GG_SANITIZE MATCHES "address")
      set(kind asan)
    else()
      set(kind tsan)
    endif()
    if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
      set(name libclang_rt.${kind}-${CMAKE_SYSTEM_PROCESSOR}.so)
    else()
      set(name lib${kind}.so)
    endif()
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${name}
      OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT (IS_ABSOLUTE "${path}" AND EXISTS "${path}"))
      set(path "")
    endif()
  endif()
  set(${out} "${path}" PARENT_SCOPE)
endfunction()

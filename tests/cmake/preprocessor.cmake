# nvcc and cubind-gen see the same program: every way a build gives nvcc a preprocessor option
# reaches cubind-gen's parse too. The kernel's parameter type depends on a macro (USE_DOUBLE);
# a stub declaring float where nvcc compiled double would silently pass the wrong bytes. Each
# target below gets the macro one way; its generated header must say double (the control target,
# without the macro, float); C++20 counts as the macro, so the standard is checked the same way
# (CUDA_STANDARD, --std, cuda_std_20 compile features), and so are the .cu's own properties
# (set_source_files_properties; were ignored: float). $<COMPILE_LANGUAGE:CUDA> (and
# $<COMPILE_LANG_AND_ID:CUDA,NVIDIA>) in the target's definitions and include directories, or
# an INTERFACE library's, is true for
# nvcc and the parse (was 0: float stubs, real.h not found) and false for the target's C
# sources (c_side.c errs otherwise). So are target_compile_options() naming CUDA, the target's
# or an INTERFACE library's (were dropped: float), while those naming no language (-Wall, which
# nvcc rejects) stay the C sources', whose flags (and those of C code linking the same library)
# are CMake's own. Then the Debug build with CMAKE_CUDA_FLAGS_DEBUG="-G -g" (which a CUDA option
# for Debug, after it, overrides).
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -P preprocessor.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR GENERATOR C_COMPILER)
file(REMOVE_RECURSE "${WORK_DIR}")
set(dir "${WORK_DIR}/src")

file(WRITE "${dir}/scale.cu" [=[
#include <cubind/annotations.h>
#include "real.h"
#if defined(USE_DOUBLE)
typedef double real;
#elif __cplusplus >= 202002L
typedef double real; /* --std c++20, CUDA_STANDARD 20 */
#else
typedef float real;
#endif
extern "C" __global__ void scale(CUBIND_INOUT_N(n) real *a, real s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= s;
}
]=])
file(WRITE "${dir}/default/real.h" "/* nothing */\n")
file(WRITE "${dir}/inc/real.h" "#define USE_DOUBLE 1\n")
file(WRITE "${dir}/force_double.h" "#define USE_DOUBLE 1\n")
file(WRITE "${dir}/c_side.c" [=[
#if defined(USE_DOUBLE) || !defined(C_SIDE)
#error "the C side of the kernel library got the CUDA definitions"
#endif
int c_side(void) { return 0; }
]=])
file(WRITE "${dir}/flags/CMakeLists.txt" [=[
set(CMAKE_CUDA_FLAGS "-DUSE_DOUBLE")
add_gpu_kernels(cuda_flags SOURCES ../scale.cu INCLUDE_DIRECTORIES ../default)
]=])
# the .cu's own properties, set after the call (the steps are made at the directory's end)
file(WRITE "${dir}/source_definitions/CMakeLists.txt" [=[
add_gpu_kernels(source_definitions SOURCES ../scale.cu ARCHS 75 INCLUDE_DIRECTORIES ../default)
set_source_files_properties(../scale.cu PROPERTIES COMPILE_DEFINITIONS USE_DOUBLE)
]=])
file(WRITE "${dir}/source_include_dirs/CMakeLists.txt" [=[
set_source_files_properties(../scale.cu PROPERTIES INCLUDE_DIRECTORIES ../inc)
add_gpu_kernels(source_include_dirs SOURCES ../scale.cu ARCHS 75)
]=])
file(WRITE "${dir}/source_options/CMakeLists.txt" [=[
add_gpu_kernels(source_options SOURCES ../scale.cu ARCHS 75 INCLUDE_DIRECTORIES ../default)
set_source_files_properties(../scale.cu PROPERTIES COMPILE_OPTIONS "SHELL:-Xcompiler -DUSE_DOUBLE")
]=])
file(WRITE "${dir}/standard/CMakeLists.txt" [=[
set(CMAKE_CUDA_STANDARD 20)
add_gpu_kernels(cuda_standard SOURCES ../scale.cu ARCHS 75 INCLUDE_DIRECTORIES ../default)
]=])
file(WRITE "${dir}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.20)
project(preprocessor LANGUAGES C)
find_package(cubind 0.2 REQUIRED)
set(scale scale.cu INCLUDE_DIRECTORIES default)
add_gpu_kernels(control SOURCES ${scale} ARCHS 75)
add_gpu_kernels(attached SOURCES ${scale} ARCHS 75 COMPILE_OPTIONS -DUSE_DOUBLE)
add_gpu_kernels(separate SOURCES ${scale} ARCHS 75 COMPILE_OPTIONS -D USE_DOUBLE)
add_gpu_kernels(long_form SOURCES ${scale} ARCHS 75 COMPILE_OPTIONS --define-macro USE_DOUBLE)
add_gpu_kernels(long_equals SOURCES ${scale} ARCHS 75 COMPILE_OPTIONS --define-macro=USE_DOUBLE)
add_gpu_kernels(undefine SOURCES ${scale} ARCHS 75
                COMPILE_OPTIONS -DUSE_DOUBLE --undefine-macro USE_DOUBLE)
add_gpu_kernels(pre_include SOURCES ${scale} ARCHS 75
                COMPILE_OPTIONS -include ${CMAKE_CURRENT_SOURCE_DIR}/force_double.h)
add_gpu_kernels(std SOURCES ${scale} ARCHS 75 COMPILE_OPTIONS --std c++20)
add_gpu_kernels(definitions SOURCES ${scale} ARCHS 75)
target_compile_definitions(definitions PRIVATE $<$<BOOL:1>:USE_DOUBLE>)
add_gpu_kernels(include_dirs SOURCES scale.cu ARCHS 75)        # real.h from inc/: USE_DOUBLE
target_include_directories(include_dirs PRIVATE inc)
add_gpu_kernels(language SOURCES ${scale} ARCHS 75)
target_compile_definitions(language PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:USE_DOUBLE>
                                            $<$<COMPILE_LANGUAGE:C>:C_SIDE>)
target_sources(language PRIVATE c_side.c)
add_gpu_kernels(language_and_id SOURCES ${scale} ARCHS 75)
target_compile_definitions(language_and_id PRIVATE
                           $<$<COMPILE_LANG_AND_ID:CUDA,Clang,NVIDIA>:USE_DOUBLE>)
add_gpu_kernels(language_include_dirs SOURCES scale.cu ARCHS 75)
target_include_directories(language_include_dirs PRIVATE
                           $<$<COMPILE_LANGUAGE:CUDA>:${CMAKE_CURRENT_SOURCE_DIR}/inc>
                           $<$<COMPILE_LANGUAGE:C>:${CMAKE_CURRENT_SOURCE_DIR}/default>)
add_library(cuda_double INTERFACE)
target_compile_definitions(cuda_double INTERFACE $<$<COMPILE_LANGUAGE:CXX,CUDA>:USE_DOUBLE>
                                                 $<$<COMPILE_LANGUAGE:C>:C_SIDE>)
add_gpu_kernels(language_interface SOURCES ${scale} ARCHS 75)
target_link_libraries(language_interface PRIVATE cuda_double)
target_sources(language_interface PRIVATE c_side.c)
add_gpu_kernels(language_c SOURCES ${scale} ARCHS 75)          # C's, not CUDA's: float
target_compile_definitions(language_c PRIVATE $<$<COMPILE_LANGUAGE:C>:USE_DOUBLE>)
# target_compile_options() naming CUDA reach nvcc and the parse (were dropped: float); those
# naming no language (-Wall: nvcc fails on it) or C stay the C sources'
add_gpu_kernels(options SOURCES ${scale} ARCHS 75)
target_compile_options(options PRIVATE -Wall $<$<COMPILE_LANGUAGE:CUDA>:-DUSE_DOUBLE>
                                       $<$<COMPILE_LANGUAGE:C>:-DC_SIDE>)
target_sources(options PRIVATE c_side.c)
# per configuration: Release defines USE_DOUBLE, Debug undefines CMAKE_CUDA_FLAGS_DEBUG's
add_gpu_kernels(options_config SOURCES ${scale} ARCHS 75)
target_compile_options(options_config PRIVATE
                       $<$<AND:$<CONFIG:Release>,$<COMPILE_LANGUAGE:CUDA>>:-DUSE_DOUBLE>
                       $<$<AND:$<CONFIG:Debug>,$<COMPILE_LANGUAGE:CUDA>>:-UUSE_DOUBLE>)
# a project's INTERFACE options library, linked to kernels and to C code; cuda_options_copy,
# linked to C code only (add_gpu_kernels() never rewrites it), gives the flags CMake would
foreach(library IN ITEMS cuda_options cuda_options_copy)
  add_library(${library} INTERFACE)
  target_compile_options(${library} INTERFACE -Wextra "$<$<CONFIG:Release>:-O1;-DC_SIDE>"
                         $<$<COMPILE_LANG_AND_ID:CUDA,NVIDIA>:SHELL:-Xcompiler -DUSE_DOUBLE>
                         $<$<COMPILE_LANGUAGE:C>:-DC_ONLY>)
endforeach()
add_gpu_kernels(options_interface SOURCES ${scale} ARCHS 75)
target_link_libraries(options_interface PRIVATE cuda_options)
target_sources(options_interface PRIVATE c_side.c)
add_library(options_c STATIC c_side.c)
target_link_libraries(options_c PRIVATE cuda_options)
add_library(options_c_copy STATIC c_side.c)
target_link_libraries(options_c_copy PRIVATE cuda_options_copy)
add_library(options_stubs_copy STATIC c_side.c)                # options_interface's C flags
target_link_libraries(options_stubs_copy PRIVATE cuda_options_copy cubind::runtime)
# nvcc preprocesses device code with the host compiler: -Xcompiler's -D reaches it too
add_gpu_kernels(host_compiler SOURCES ${scale} ARCHS 75 COMPILE_OPTIONS -Xcompiler -O2,-DUSE_DOUBLE)
# as target_compile_options() reads them: SHELL: split (repeated -Xcompiler kept), and a
# generator expression holding a list, quoted or split at its ';' by CMake, one option list
add_gpu_kernels(shell SOURCES ${scale} ARCHS 75
                COMPILE_OPTIONS "SHELL:-Xcompiler -O2" "SHELL:-Xcompiler -DUSE_DOUBLE")
add_gpu_kernels(genex_list SOURCES ${scale} ARCHS 75
                COMPILE_OPTIONS "$<$<CONFIG:Release>:-lineinfo;-DUSE_DOUBLE>"
                                $<$<CONFIG:Release>:-DUNUSED_A;-DUNUSED_B>)
add_gpu_kernels(standard_property SOURCES ${scale} ARCHS 75)  # C++20 by the property
set_target_properties(standard_property PROPERTIES CUDA_STANDARD 20)
# cuda_std_NN compile features, the target's or an INTERFACE library's, raise the standard as
# CMake does for CUDA sources (were ignored: float); a lower one does not lower CUDA_STANDARD
add_gpu_kernels(feature SOURCES ${scale} ARCHS 75)
target_compile_features(feature PRIVATE cuda_std_20)
add_library(needs_cuda20 INTERFACE)
target_compile_features(needs_cuda20 INTERFACE cuda_std_20)
add_gpu_kernels(feature_interface SOURCES ${scale} ARCHS 75)
set_target_properties(feature_interface PROPERTIES CUDA_STANDARD 14)
target_link_libraries(feature_interface PRIVATE needs_cuda20)
add_gpu_kernels(feature_lower SOURCES ${scale} ARCHS 75)
set_target_properties(feature_lower PROPERTIES CUDA_STANDARD 20)
target_compile_features(feature_lower PRIVATE cuda_std_14)
add_subdirectory(flags)
add_subdirectory(standard)                                     # CMAKE_CUDA_STANDARD 20
add_subdirectory(source_definitions)
add_subdirectory(source_include_dirs)
add_subdirectory(source_options)
add_gpu_kernels(debug_flags SOURCES ${scale} ARCHS 75)         # CMAKE_CUDA_FLAGS_DEBUG, below
]=])

function(expect_type target type)
  file(READ "${dir}/build/${ARGN}${target}/scale.cubind.h" header)
  if(NOT header MATCHES "scale_launch\\(const cubind_config \\*cfg, ${type} \\*a, ${type} s, int n\\)")
    message(FATAL_ERROR "${target}: expected the stubs to take ${type}:\n${header}")
  endif()
  message(STATUS "${target}: ${type}")
endfunction()

# Release: CMAKE_CUDA_FLAGS_DEBUG does not apply (debug_flags says float).
cubind_run(output "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
           -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CUDA_FLAGS_DEBUG=-DUSE_DOUBLE -G")
cubind_run(output "${CMAKE_COMMAND}" --build "${dir}/build")
foreach(target IN ITEMS attached separate long_form long_equals pre_include std definitions
                        include_dirs host_compiler shell genex_list standard_property language
                        language_and_id language_include_dirs language_interface feature
                        feature_interface feature_lower options options_interface
                        options_config)
  expect_type(${target} double)
endforeach()
expect_type(cuda_flags double flags/)
expect_type(cuda_standard double standard/)
foreach(target IN ITEMS source_definitions source_include_dirs source_options)
  expect_type(${target} double ${target}/)
endforeach()
foreach(target IN ITEMS control undefine debug_flags language_c)
  expect_type(${target} float)
endforeach()
# The C compiles keep their exact flags: of the C library and of the kernel target's C sources,
# as those of the same options never rewritten.
function(expect_c_flags target copy)
  foreach(name IN ITEMS target copy)
    if(GENERATOR MATCHES "Ninja")
      file(READ "${dir}/build/build.ninja" rules)
      set(regex "build CMakeFiles/${${name}}\\.dir/c_side\\.c\\.o:[^\n]*\n")
      string(APPEND regex "(  [^\n]*\n)*  FLAGS = ") # (its variables, FLAGS among them)
    else()
      file(READ "${dir}/build/CMakeFiles/${${name}}.dir/flags.make" rules)
      set(regex "()C_FLAGS = ")
    endif()
    if(NOT rules MATCHES "${regex}([^\n]*)")
      message(FATAL_ERROR "no C flags for ${${name}}'s c_side.c:\n${rules}")
    endif()
    set(${name}_flags "${CMAKE_MATCH_2}")
  endforeach()
  if(NOT target_flags STREQUAL copy_flags
     OR NOT target_flags MATCHES "-Wextra -O1 -DC_SIDE -DC_ONLY")
    message(FATAL_ERROR "${target}'s C flags '${target_flags}', expected '${copy_flags}'")
  endif()
  message(STATUS "${target}: C flags ${target_flags}")
endfunction()
expect_c_flags(options_c options_c_copy)
expect_c_flags(options_interface options_stubs_copy)

# Debug: CMAKE_CUDA_FLAGS_DEBUG reaches nvcc and the parse; -G makes nvcc compress the cubin
# (zstd), which cubind-gen reads. CMAKE_CONFIGURATION_TYPES, which this single-configuration
# generator ignores, changes nothing (its list replaced CMAKE_BUILD_TYPE's flags: float).
cubind_run(output "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build-debug" -G "${GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
           -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CUDA_FLAGS_DEBUG=-DUSE_DOUBLE -G"
           "-DCMAKE_CONFIGURATION_TYPES=Release;RelWithDebInfo")
cubind_run(output "${CMAKE_COMMAND}" --build "${dir}/build-debug" --target debug_flags
           options_config)
expect_type(debug_flags double ../build-debug/)
expect_type(options_config float ../build-debug/)
cubind_fatbin_entries(entries "${dir}/build-debug/debug_flags/scale.fatbin" FLAGS flags)
cubind_expect("${flags}" "^sm_75=0x[0-9a-f]*8[0-9a-f][0-9a-f][0-9a-f]$"
              "Debug with -G: one compressed (zstd) cubin")

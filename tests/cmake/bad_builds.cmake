# add_gpu_kernels() with bad inputs that only the build can find: each case is a throw-away
# project on the installed package (fixture cubind_installed) that must fail to configure or to
# build, with the expected message; a case that must build checks that instead.
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -P bad_builds.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR GENERATOR C_COMPILER)

set(good_cu "#include <cubind/annotations.h>\nextern \"C\" __global__ void k(CUBIND_INOUT_N(n) float *a, int n) {}\n") # (no ";": ARGN lists would split there)
set(main_c "int main(void) { return 0; }\n")

# write_project(<name> <cmake body> <file>=<content or variable name>...): writes the project;
# sets dir in the caller. A content that holds ';' must come in a variable (ARGN would split it).
function(write_project name body)
  set(dir "${WORK_DIR}/${name}")
  file(REMOVE_RECURSE "${dir}")
  file(WRITE "${dir}/CMakeLists.txt"
       "cmake_minimum_required(VERSION 3.20)\nproject(bad LANGUAGES C)\n"
       "find_package(cubind REQUIRED)\n${body}\n")
  foreach(file IN LISTS ARGN)
    string(FIND "${file}" "=" at)
    string(SUBSTRING "${file}" 0 ${at} path)
    math(EXPR at "${at} + 1")
    string(SUBSTRING "${file}" ${at} -1 content)
    if(content MATCHES "^[A-Za-z_][A-Za-z0-9_]*$" AND DEFINED ${content})
      set(content "${${content}}")
    endif()
    file(WRITE "${dir}/${path}" "${content}")
  endforeach()
  set(dir "${dir}" PARENT_SCOPE)
endfunction()

function(configure dir rc_var out_var)
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}"
                          "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
  set(${rc_var} ${rc} PARENT_SCOPE)
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()

# expect_configure_error(<name> <regex> <body> <files>...)
function(expect_configure_error name regex body)
  write_project(${name} "${body}" ${ARGN})
  configure("${dir}" rc output)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${name}: configuring succeeded; expected an error matching '${regex}'")
  endif()
  string(REGEX REPLACE "[ \n]+" " " flat "${output}") # CMake wraps its messages' lines
  if(NOT flat MATCHES "${regex}")
    message(FATAL_ERROR "${name}: expected a configure error matching '${regex}', got:\n${output}")
  endif()
  message(STATUS "${name}: configure fails as expected")
endfunction()

# expect_build_error(<name> <regex> <body> <files>...): configures fine, the build fails.
# Keeps going after the first failure (-k 0 / -k) so that every step's message is seen.
function(expect_build_error name regex body)
  write_project(${name} "${body}" ${ARGN})
  configure("${dir}" rc output)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: configuring failed; expected the build to fail:\n${output}")
  endif()
  if(GENERATOR STREQUAL "Ninja")
    set(keep_going -k 0)
  else()
    set(keep_going -k)
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${dir}/build" -- ${keep_going}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${name}: the build succeeded; expected an error matching '${regex}'")
  endif()
  string(REGEX REPLACE "[ \n]+" " " flat "${output}")
  if(NOT flat MATCHES "${regex}")
    message(FATAL_ERROR "${name}: expected a build error matching '${regex}', got:\n${output}")
  endif()
  # cubind-gen writes all-or-nothing: no temporary file is left behind (once the detached
  # prelude builders a run may start are done: each holds its cache's prelude-*.lock meanwhile)
  file(GLOB_RECURSE builder_locks "${dir}/build/prelude-*.lock")
  foreach(lock IN LISTS builder_locks)
    execute_process(COMMAND flock "${lock}" true)
  endforeach()
  file(GLOB_RECURSE leftovers "${dir}/build/*.tmp-*")
  if(leftovers)
    message(FATAL_ERROR "${name}: a failed build left temporary files: ${leftovers}")
  endif()
  message(STATUS "${name}: build fails as expected")
endfunction()

expect_configure_error(missing_source "add_gpu_kernels\\(k\\): SOURCES file '[^']*/nothere\\.cu' does not exist"
  "add_gpu_kernels(k SOURCES nothere.cu ARCHS 90)\nadd_executable(app main.c)\ntarget_link_libraries(app PRIVATE k)"
  "main.c=main_c")
# A .cu added with target_sources(): no stub would bind it (compiled as a plain object where
# CUDA is enabled, left out where it is not), so configuring stops.
expect_configure_error(target_sources_cu "add_gpu_kernels\\(k\\): [^ ]*b\\.cu was added to the target after the call \\(target_sources\\(\\)\\): only the SOURCES of add_gpu_kernels\\(\\) get stubs"
  "add_gpu_kernels(k SOURCES k.cu ARCHS 90)\ntarget_sources(k PRIVATE b.cu k_helpers.cuh)"
  "k.cu=good_cu" "b.cu=good_cu" "k_helpers.cuh=good_cu")
# What CMake itself would refuse with an internal message: a generator expression in SOURCES,
# a '#' in a .cu's name (no build output may have one).
expect_configure_error(generator_expression_source "add_gpu_kernels\\(k\\): SOURCES holds a generator expression"
  "add_gpu_kernels(k SOURCES $<$<CONFIG:Release>:k.cu> ARCHS 90)" "k.cu=good_cu")
expect_configure_error(hash_in_source_name "add_gpu_kernels\\(k\\): SOURCES file '[^']*/k#1\\.cu' has a '#' in its name"
  "add_gpu_kernels(k SOURCES \"k#1.cu\" ARCHS 90)" "k#1.cu=good_cu")
# CMake's meaning of CMAKE_CUDA_ARCHITECTURES is checked as ARCHS is.
expect_configure_error(bad_cmake_architectures
  "CUDA_ARCHITECTURES entry 'sm_80' is not an architecture"
  "set(CMAKE_CUDA_ARCHITECTURES sm_80)\nadd_gpu_kernels(k SOURCES k.cu)" "k.cu=good_cu")
# The device link keeps machine code only: a SEPARABLE target needs one real architecture.
expect_configure_error(separable_ptx_only "SEPARABLE needs machine code \\(SASS\\) for at least one architecture"
  "add_gpu_kernels(k SOURCES k.cu ARCHS 90-virtual SEPARABLE)" "k.cu=good_cu")
# The build steps are made at the end of the target's directory: a property they were made
# from, set later by a parent directory, is an error (was: silently ignored).
set(sub_k "add_gpu_kernels(k SOURCES ../k.cu)\n")
expect_configure_error(parent_architectures
  "add_gpu_kernels\\(k\\): CUDA_ARCHITECTURES was set to '90-real' after the end of the target's directory \\([^)]*/sub\\), where its build steps were made with it unset: set it in that directory"
  "add_subdirectory(sub)\nset_target_properties(k PROPERTIES CUDA_ARCHITECTURES 90-real)"
  "k.cu=good_cu" "sub/CMakeLists.txt=sub_k")
expect_configure_error(parent_separable
  "add_gpu_kernels\\(k\\): CUDA_SEPARABLE_COMPILATION was set to 'ON' after the end of the target's directory"
  "add_subdirectory(sub)\nset_target_properties(k PROPERTIES CUDA_SEPARABLE_COMPILATION ON)"
  "k.cu=good_cu" "sub/CMakeLists.txt=sub_k")
expect_build_error(arch_nvcc_rejects "nvcc fatal *: Unsupported gpu architecture 'compute_12'"
  "add_gpu_kernels(k SOURCES k.cu ARCHS 12)"
  "k.cu=good_cu")
# C++ errors come from nvcc, which runs first (cubind-gen reads the fatbin it builds);
# cubind-gen's own errors (annotations) from cubind-gen, with line and column.
expect_build_error(syntax_error "k\\.cu\\(2\\): error: expected a \"\\)\""
  "add_gpu_kernels(k SOURCES k.cu ARCHS 90)"
  "k.cu=#include <cubind/annotations.h>\nextern \"C\" __global__ void k(float *a, int n {}\n")
expect_build_error(bad_annotation "k\\.cu:2:54: error: CUBIND_IN on parameter 'n' of kernel 'k', which is not a pointer"
  "add_gpu_kernels(k SOURCES k.cu ARCHS 90)"
  "k.cu=#include <cubind/annotations.h>\nextern \"C\" __global__ void k(float *a, CUBIND_IN int n) {}\n")
expect_build_error(missing_include "k\\.cu:1:10: fatal error: nothere\\.h: No such file or directory"
  "add_gpu_kernels(k SOURCES k.cu ARCHS 90)"
  "k.cu=#include \"nothere.h\"\nextern \"C\" __global__ void k(float *a) {}\n")
expect_configure_error(same_module_one_call "two SOURCES give the module name 'k'"
  "add_gpu_kernels(k SOURCES k.cu sub/k.cu ARCHS 90)"
  "k.cu=good_cu" "sub/k.cu=good_cu")

# expect_build(<name> <body> <files>...): configures and builds (a case that must not fail).
function(expect_build name body)
  write_project(${name} "${body}" ${ARGN})
  configure("${dir}" rc output)
  if(rc EQUAL 0)
    execute_process(COMMAND "${CMAKE_COMMAND}" --build "${dir}/build"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: expected the build to succeed:\n${output}")
  endif()
  message(STATUS "${name}: builds, as expected")
endfunction()

# C names given twice (CONTRACT section 2): the linker would silently keep one of the two
# definitions. An error naming both places, whether the .cu files are in one target or in
# targets linked into one program (directly, through another library or a generator expression);
# fine when the targets go into different programs, or with a PREFIX.
set(k_cu "#include <cubind/annotations.h>\nextern \"C\" __global__ void k(float *a) {}\n")
set(app "add_executable(app main.c)\n")
set(both_c "int both(void) { return 0; }\n")
set(prefixed_main_c "#include \"a.cubind.h\"\n#include \"b.cubind.h\"\nint main(void) { return k_launch == b_k_launch; }\n")
set(twice "kernel 'k' \\([^)]*/a\\.cu:2:[0-9]+\\) and kernel 'k' \\([^)]*/b\\.cu:2:[0-9]+\\) both generate k_launch/k_call: rename one or give the targets PREFIXes")
expect_build_error(kernel_twice_one_target "${twice}"
  "add_gpu_kernels(k SOURCES a.cu b.cu ARCHS 90)\n${app}target_link_libraries(app PRIVATE k)"
  "a.cu=k_cu" "b.cu=k_cu" "main.c=main_c")
expect_build_error(kernel_twice_one_program "${twice}"
  "add_gpu_kernels(ka SOURCES a.cu ARCHS 90)\nadd_gpu_kernels(kb SOURCES b.cu ARCHS 90)\n${app}target_link_libraries(app PRIVATE ka kb)"
  "a.cu=k_cu" "b.cu=k_cu" "main.c=main_c")
expect_build_error(kernel_twice_through_a_library "${twice}"
  "add_gpu_kernels(ka SOURCES a.cu ARCHS 90)\nadd_subdirectory(sub)\nadd_library(both STATIC both.c)\ntarget_link_libraries(both PUBLIC ka kb)\n${app}target_link_libraries(app PRIVATE both)"
  "a.cu=k_cu" "b.cu=k_cu" "sub/CMakeLists.txt=add_gpu_kernels(kb SOURCES ../b.cu ARCHS 90)\n"
  "both.c=both_c" "main.c=main_c")
# through generator expressions: $<BUILD_INTERFACE:> (exportable libraries), a configuration's
expect_build_error(kernel_twice_through_generator_expressions "${twice}"
  "add_gpu_kernels(ka SOURCES a.cu ARCHS 90)\nadd_gpu_kernels(kb SOURCES b.cu ARCHS 90)\nadd_library(both STATIC both.c)\ntarget_link_libraries(both PUBLIC $<BUILD_INTERFACE:kb>)\n${app}target_link_libraries(app PRIVATE $<$<NOT:$<CONFIG:NoSuchConfig>>:ka> both)"
  "a.cu=k_cu" "b.cu=k_cu" "both.c=both_c" "main.c=main_c")
# the build directory (configure() uses <project>/build) is also a subdirectory the project
# adds: the walk over the directories went round forever ("Maximum recursion depth"); the
# top level's program is still checked
expect_build_error(build_dir_is_a_subdirectory "${twice}"
  "add_subdirectory(build)\nadd_gpu_kernels(ka SOURCES a.cu ARCHS 90)\nadd_gpu_kernels(kb SOURCES b.cu ARCHS 90)\n${app}target_link_libraries(app PRIVATE ka kb)"
  "a.cu=k_cu" "b.cu=k_cu" "main.c=main_c" "build/CMakeLists.txt=add_executable(tool ../main.c)\n")
# sources of other suffixes are CUDA too (nvcc -x cu; nvcc alone goes by the suffix); a file
# given twice, by its name and its full path, is one source (was: "two SOURCES give the
# module name 'k'")
set(k2_cu "extern \"C\" __global__ void k2(float *a) { a[0] = 2; }\n")
set(suffixes_main_c "#include \"k.cubind.h\"\n#include \"k2.cubind.h\"\nint main(void) { return k_launch == k2_launch; }\n")
expect_build(source_suffixes
  "add_gpu_kernels(k SOURCES k.cuh k2.cpp \${CMAKE_CURRENT_SOURCE_DIR}/k.cuh ARCHS 90)\n${app}target_link_libraries(app PRIVATE k)"
  "k.cuh=k_cu" "k2.cpp=k2_cu" "main.c=suffixes_main_c")
# a relative .cu that a custom command of the directory writes (declared after the call, as
# CMake allows): CMake's place for it, the binary directory (was: "SOURCES file '<source
# dir>/gen.cu' does not exist"); given by its full path too, it is one source
expect_build(generated_relative_source
  "add_gpu_kernels(k SOURCES gen.cu \${CMAKE_CURRENT_BINARY_DIR}/gen.cu ARCHS 90)\nadd_custom_command(OUTPUT gen.cu COMMAND \${CMAKE_COMMAND} -E copy \${CMAKE_CURRENT_SOURCE_DIR}/k.cu.in gen.cu DEPENDS k.cu.in)"
  "k.cu.in=k_cu")
# a parent's property the steps do not use (ARCHS decides), or its value unchanged: no error
expect_build(parent_properties_unused
  "add_subdirectory(sub)\nset_target_properties(k PROPERTIES CUDA_ARCHITECTURES 80 CUDA_COMPILER_LAUNCHER \"\")"
  "k.cu=good_cu" "sub/CMakeLists.txt=add_gpu_kernels(k SOURCES ../k.cu ARCHS 90)\n")
# modules whose names differ only in case: each header keeps its own include guard
set(upper_cu "extern \"C\" __global__ void upper(float *a) { a[0] = 1; }\n")
set(lower_cu "extern \"C\" __global__ void lower(float *a) { a[0] = 2; }\n")
set(cases_main_c "#include \"A.cubind.h\"\n#include \"a.cubind.h\"\nint main(void) { return upper_launch == lower_launch; }\n")
expect_build(module_names_in_two_cases
  "add_gpu_kernels(k SOURCES A.cu a.cu ARCHS 90)\n${app}target_link_libraries(app PRIVATE k)\ntarget_compile_options(app PRIVATE -Werror=implicit-function-declaration)"
  "A.cu=upper_cu" "a.cu=lower_cu" "main.c=cases_main_c")
expect_build(kernel_twice_two_programs
  "add_gpu_kernels(ka SOURCES a.cu ARCHS 90)\nadd_gpu_kernels(kb SOURCES b.cu ARCHS 90)\nadd_executable(app_a main.c)\ntarget_link_libraries(app_a PRIVATE ka)\nadd_executable(app_b main.c)\ntarget_link_libraries(app_b PRIVATE kb)"
  "a.cu=k_cu" "b.cu=k_cu" "main.c=main_c")
expect_build(kernel_twice_prefix
  "add_gpu_kernels(ka SOURCES a.cu ARCHS 90)\nadd_gpu_kernels(kb SOURCES b.cu ARCHS 90 PREFIX b_)\n${app}target_link_libraries(app PRIVATE ka kb)"
  "a.cu=k_cu" "b.cu=k_cu"
  "main.c=prefixed_main_c")
# Two targets with .cu files of one name, PREFIXes telling them apart: each header is reached
# under its target's name too (the flat k.cubind.h of only one of them was reachable:
# "implicit declaration of function 'b_k_launch'").
set(same_stem_main_c "#include <ka/k.cubind.h>\n#include <kb/k.cubind.h>\nint main(void) { return k_launch == b_k_launch; }\n")
expect_build(same_stem_two_targets_prefix
  "add_gpu_kernels(ka SOURCES a/k.cu ARCHS 90)\nadd_gpu_kernels(kb SOURCES b/k.cu ARCHS 90 PREFIX b_)\n${app}target_link_libraries(app PRIVATE ka kb)\ntarget_compile_options(app PRIVATE -Werror=implicit-function-declaration)"
  "a/k.cu=k_cu" "b/k.cu=k_cu" "main.c=same_stem_main_c")
# Include directories CMake makes system ones (an IMPORTED target's, SYSTEM INTERFACE ones) go
# to nvcc as -isystem, as CMake's CUDA compile gives them: their headers' warnings do not fail
# a -Werror build (they did: -I). cubind-gen still binds a kernel taking a struct of such a
# header by value (as a system header's, it would give it no C functions).
set(system_vec3_h "struct vec3 { float x, y, z; };\n")
set(system_ext_h "#include \"vec3.h\"\n__device__ inline int ext_helper(int v) { unsigned char c = 300; return v + c; }\n")
set(system_sys_h "__device__ inline int sys_helper(int v) { unsigned char c = 300; return v + c; }\n")
set(system_cu "#include <ext.h>\n#include <sys.h>\nextern \"C\" __global__ void k(struct vec3 v, int *p) { *p = ext_helper(sys_helper((int)v.x)); }\n")
set(system_main_c "#include \"k.cubind.h\"\nint main(void) { return k_launch == 0; }\n")
expect_build(system_include_directories
  "add_library(ext INTERFACE IMPORTED)\nset_target_properties(ext PROPERTIES INTERFACE_INCLUDE_DIRECTORIES \${CMAKE_CURRENT_SOURCE_DIR}/ext)\nadd_library(sys INTERFACE)\ntarget_include_directories(sys SYSTEM INTERFACE $<BUILD_INTERFACE:\${CMAKE_CURRENT_SOURCE_DIR}/sys>)\nadd_gpu_kernels(k SOURCES k.cu ARCHS 90 COMPILE_OPTIONS -Werror all-warnings)\ntarget_link_libraries(k PUBLIC ext sys)\n${app}target_link_libraries(app PRIVATE k)\ntarget_compile_options(app PRIVATE -Werror=implicit-function-declaration)"
  "ext/vec3.h=system_vec3_h" "ext/ext.h=system_ext_h" "sys/sys.h=system_sys_h" "k.cu=system_cu"
  "main.c=system_main_c")
# Two targets with the same stem: both would define cubind_fatbin_k (found by this catalogue:
# linked together, the linker took one library's fatbin for both).
expect_build_error(same_module_two_targets
  "module 'k' \\([^)]*/a/k\\.cu\\) and module 'k' \\([^)]*/c/k\\.cu\\) both define the module k"
  "add_gpu_kernels(ka SOURCES a/k.cu ARCHS 90)\nadd_gpu_kernels(kb SOURCES b/k.cu ARCHS 90 PREFIX b_)\nadd_gpu_kernels(kc SOURCES c/k.cu ARCHS 90)\n${app}target_link_libraries(app PRIVATE ka kb kc)"
  "a/k.cu=good_cu" "b/k.cu=k_cu" "c/k.cu=k_cu" "main.c=main_c")

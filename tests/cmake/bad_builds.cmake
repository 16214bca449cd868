# add_gpu_kernels() with bad inputs that only the build can find: each case is a throw-away
# project on the installed package (fixture cubind_installed) that must fail to configure or to
# build, with the expected message; a case that must build checks that instead.
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -P bad_builds.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR GENERATOR C_COMPILER)

set(good_cu "#include <cubind/annotations.h>\nextern \"C\" __global__ void k(CUBIND_INOUT_N(n) float *a, int n) { a[0] = 1; }\n")
set(main_c "int main(void) { return 0; }\n")

# project(<name> <cmake body> <file>=<content>...): writes the project; sets dir in the caller.
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
  # cubind-gen writes all-or-nothing: no temporary file is left behind
  file(GLOB_RECURSE leftovers "${dir}/build/*.tmp-*")
  if(leftovers)
    message(FATAL_ERROR "${name}: a failed build left temporary files: ${leftovers}")
  endif()
  message(STATUS "${name}: build fails as expected")
endfunction()

expect_configure_error(missing_source "Cannot find source file:[ \n]*[^\n]*/nothere\\.cu"
  "add_gpu_kernels(k SOURCES nothere.cu ARCHS 90)\nadd_executable(app main.c)\ntarget_link_libraries(app PRIVATE k)"
  "main.c=${main_c}")
expect_build_error(arch_nvcc_rejects "nvcc fatal *: Unsupported gpu architecture 'compute_12'"
  "add_gpu_kernels(k SOURCES k.cu ARCHS 12)"
  "k.cu=${good_cu}")
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
  "k.cu=${good_cu}" "sub/k.cu=${good_cu}")
# Two targets with the same stem: both would define cubind_fatbin_k; linked together, the
# linker silently took one library's fatbin for both (found by this catalogue; now an error).
expect_configure_error(same_module_two_targets
  "add_gpu_kernels\\(kb\\): module name 'k' \\([^)]*/b/k\\.cu\\) is already used by add_gpu_kernels\\(ka\\)"
  "add_gpu_kernels(ka SOURCES a/k.cu ARCHS 90)\nadd_gpu_kernels(kb SOURCES b/k.cu ARCHS 90)"
  "a/k.cu=${good_cu}" "b/k.cu=${good_cu}")

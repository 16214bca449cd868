# Ninja Multi-Config: each configuration gets its own fatbin and stubs. A kernel's parameter type
# depends on a definition given to Debug only ($<$<CONFIG:Debug>:USE_DOUBLE>); one folder for all
# configurations handed Release the double stubs of the last Debug build. Builds Debug, then
# Release, checks each configuration's header, then that switching back is a no-op, that
# compile_commands.json has each configuration's nvcc steps; and that CMAKE_CROSS_CONFIGS is
# refused at configure with a clear message (CMake 3.25 crashed on it).
#   cmake -DPREFIX=... -DWORK_DIR=... -DC_COMPILER=cc -P multi_config.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR C_COMPILER)
file(REMOVE_RECURSE "${WORK_DIR}")
set(dir "${WORK_DIR}/src")
file(WRITE "${dir}/scale.cu" [=[
#include <cubind/annotations.h>
#ifdef USE_DOUBLE
typedef double real;
#else
typedef float real;
#endif
extern "C" __global__ void scale(CUBIND_INOUT_N(n) real *a, real s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= s;
}
]=])
file(WRITE "${dir}/other/more.cu" "extern \"C\" __global__ void more(float *a) { a[0] = 1; }\n")
file(WRITE "${dir}/main.c" "#include \"scale.cubind.h\"\n#include \"more.cubind.h\"\n"
     "int main(void) { return scale_launch(0, 0, 2, 0) == CUBIND_SUCCESS ? 0 : 1; }\n")
file(WRITE "${dir}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.20)
project(multi LANGUAGES C)
find_package(cubind 0.2 REQUIRED)
add_gpu_kernels(k SOURCES scale.cu ARCHS 90)
target_compile_definitions(k PRIVATE $<$<CONFIG:Debug>:USE_DOUBLE>)
add_gpu_kernels(k2 SOURCES other/more.cu ARCHS 90)
add_executable(app main.c)
target_link_libraries(app PRIVATE k k2)
]=])
set(build "${dir}/build")
cubind_run(output "${CMAKE_COMMAND}" -S "${dir}" -B "${build}" -G "Ninja Multi-Config"
           "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
           -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
set(configs Debug Release)
set(reals double float)
foreach(config real IN ZIP_LISTS configs reals)
  cubind_run(output "${CMAKE_COMMAND}" --build "${build}" --config ${config})
  file(READ "${build}/k/${config}/scale.cubind.h" header)
  cubind_expect("${header}" "scale_launch\\(const cubind_config \\*cfg, ${real} \\*a, ${real} s"
                "${config}: the stubs of its own definitions (${real})")
  message(STATUS "${config}: scale takes ${real}")
endforeach()
foreach(config IN ITEMS Debug Release)
  cubind_run(output "${CMAKE_COMMAND}" --build "${build}" --config ${config})
  cubind_expect("${output}" "no work to do" "switching back to ${config} rebuilds nothing")
endforeach()
message(STATUS "switching configurations: no work")

# compile_commands.json holds each configuration's compiles (CMake's C ones): scale.cu's nvcc
# step of each, with its own definitions (it held no .cu).
file(READ "${build}/compile_commands.json" database)
string(JSON count LENGTH "${database}")
math(EXPR last "${count} - 1")
set(found "")
foreach(i RANGE ${last})
  string(JSON file GET "${database}" ${i} file)
  if(file MATCHES "/scale\\.cu$")
    string(JSON output GET "${database}" ${i} output)
    string(REGEX MATCH "[^/]+(/[^/]+)$" config "${output}") # (k/<config>/scale.fatbin)
    string(REGEX REPLACE "/.*" "" config "${config}")
    string(JSON arguments GET "${database}" ${i} arguments)
    list(APPEND found ${config})
    if(config STREQUAL "Debug" AND NOT arguments MATCHES "\"-DUSE_DOUBLE\"")
      message(FATAL_ERROR "the Debug entry of scale.cu lacks -DUSE_DOUBLE: ${arguments}")
    elseif(NOT config STREQUAL "Debug" AND arguments MATCHES "USE_DOUBLE")
      message(FATAL_ERROR "the ${config} entry of scale.cu has USE_DOUBLE: ${arguments}")
    endif()
  endif()
endforeach()
list(SORT found)
if(NOT found STREQUAL "Debug;RelWithDebInfo;Release")
  message(FATAL_ERROR "expected scale.cu's nvcc step for Debug, Release and RelWithDebInfo in "
                      "compile_commands.json, found '${found}':\n${database}")
endif()
message(STATUS "compile_commands.json: scale.cu for each configuration")

execute_process(COMMAND "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/cross" -G "Ninja Multi-Config"
                        "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
                        -DCMAKE_CROSS_CONFIGS=all
                RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(rc EQUAL 0 OR NOT output MATCHES "CMAKE_CROSS_CONFIGS is not supported")
  message(FATAL_ERROR "CMAKE_CROSS_CONFIGS: expected a clear configure error, got ${rc}:\n${output}")
endif()
message(STATUS "CMAKE_CROSS_CONFIGS: refused with a clear message")

# A space in the build directory and in a .cu file's name: the build works, and a second build
# does nothing (every ninja run redid nvcc, cubind-gen and the link: the depfile nvcc writes for
# -MT named the fatbin unescaped, which read as two files).
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -P spaces.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR GENERATOR C_COMPILER)
set(src "${WORK_DIR}/source dir")
set(build "${WORK_DIR}/build dir")
file(REMOVE_RECURSE "${WORK_DIR}")
file(WRITE "${src}/my kernels.cu" [=[
#include <cubind/annotations.h>
#include "my header.cuh"
extern "C" __global__ void twice(CUBIND_INOUT_N(n) float *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= FACTOR;
}
]=])
file(WRITE "${src}/my header.cuh" "#define FACTOR 2.0f\n")
file(WRITE "${src}/main.c" "#include \"my kernels.cubind.h\"\nint main(void) { return twice_launch == 0; }\n")
file(WRITE "${src}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.20)
project(spaces LANGUAGES C)
find_package(cubind REQUIRED)
add_gpu_kernels(my_kernels SOURCES "my kernels.cu" ARCHS 75)
add_executable(app main.c)
target_link_libraries(app PRIVATE my_kernels)
]=])
cubind_run(output "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G "${GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}")
cubind_run(output "${CMAKE_COMMAND}" --build "${build}")
cubind_expect("${output}" "cubind: nvcc my kernels.cu" "${GENERATOR}, first build")
cubind_run(output "${CMAKE_COMMAND}" --build "${build}")
if(output MATCHES "cubind: |Building |Linking " OR
   (GENERATOR STREQUAL "Ninja" AND NOT output MATCHES "no work to do"))
  message(FATAL_ERROR "${GENERATOR}: the second build did work:\n${output}")
endif()
file(TOUCH "${src}/my header.cuh")
cubind_run(output "${CMAKE_COMMAND}" --build "${build}")
cubind_expect("${output}" "cubind: nvcc my kernels.cu" "${GENERATOR}, the header touched")
cubind_run(output "${CMAKE_COMMAND}" --build "${build}")
if(output MATCHES "cubind: |Building |Linking ")
  message(FATAL_ERROR "${GENERATOR}: the build after the header's did work:\n${output}")
endif()
message(STATUS "${GENERATOR}: spaces in paths, no work when nothing changed")

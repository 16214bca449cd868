# Compressed cubins: device debug code (-G), -Xfatbin=-compress-all (zstd, nvcc 13's default
# method) and --compress-mode=speed (LZ4) are bound exactly as the uncompressed build is: the
# same generated header, kernels nvcc instantiated from host code included (those come from the
# fatbin alone), and the program links. A damaged compressed cubin is an error, not a guess.
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -DCUBIND_GEN=... -P compressed.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR GENERATOR C_COMPILER CUBIND_GEN)
file(REMOVE_RECURSE "${WORK_DIR}")
set(dir "${WORK_DIR}/src")
file(WRITE "${dir}/fill.cu" [=[
#include <cubind/annotations.h>
/** a[0..n) = v; instantiated only by the launches below (bound from the fatbin). */
template <typename T>
__global__ void fill(CUBIND_OUT_N(n) T *a, T v, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = v;
}
extern "C" __global__ void plain(float *a) { a[0] = 1.0f; }
void launch_all(float *f, int *i)
{
  fill<<<1, 32>>>(f, 1.0f, 32);
  fill<<<1, 32>>>(i, 1, 32);
}
]=])
file(WRITE "${dir}/main.c" [=[
#include "fill.cubind.h"
int main(void) { return fill_float_launch != 0 && fill_int_call != 0 && plain_launch != 0 ? 0 : 1; }
]=])
file(WRITE "${dir}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.20)
project(compressed LANGUAGES C)
find_package(cubind 0.2 REQUIRED)
foreach(case IN ITEMS uncompressed device_debug compress_all lz4)
  set(options "")
  if(case STREQUAL "device_debug")
    set(options -G)
  elseif(case STREQUAL "compress_all")
    set(options -Xfatbin=-compress-all)
  elseif(case STREQUAL "lz4")
    set(options -Xfatbin=-compress-all --compress-mode=speed)
  endif()
  if(options)
    add_gpu_kernels(${case} SOURCES fill.cu ARCHS 80 90 COMPILE_OPTIONS ${options})
  else()
    add_gpu_kernels(${case} SOURCES fill.cu ARCHS 80 90)
  endif()
  add_executable(app_${case} main.c)
  target_link_libraries(app_${case} PRIVATE ${case})
endforeach()
]=])

cubind_run(output "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}")
cubind_run(output "${CMAKE_COMMAND}" --build "${dir}/build")

file(READ "${dir}/build/uncompressed/fill.cubind.h" want)
cubind_expect("${want}" "fill_float_launch.*fill_int_launch" "the uncompressed build")
# (ZIP_LISTS takes the names of list variables: literal lists would give no iteration at all)
set(cases device_debug compress_all lz4)
set(methods 8 8 2)
foreach(case method IN ZIP_LISTS cases methods)
  cubind_fatbin_entries(entries "${dir}/build/${case}/fill.fatbin" FLAGS flags)
  foreach(entry IN LISTS flags)
    if(entry MATCHES "^sm_" AND NOT entry MATCHES "=0x[0-9a-f]*${method}[0-9a-f][0-9a-f][0-9a-f]$")
      message(FATAL_ERROR "${case}: expected compressed cubins (flag 0x${method}000), got ${flags}")
    endif()
  endforeach()
  file(READ "${dir}/build/${case}/fill.cubind.h" got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${case}: the header differs from the uncompressed build's:\n${got}")
  endif()
  message(STATUS "${case}: ${flags}; the same stubs as uncompressed")
endforeach()

# A damaged entry: the first cubin's compressed length (u32 at byte 16 of its header, which
# starts at byte 16) halved, so the Zstandard frame ends early. cubind-gen names the cubin and
# says so; nothing is written.
file(READ "${dir}/build/compress_all/fill.fatbin" hex HEX)
_cubind_hex_le(length "${hex}" 32 4)
math(EXPR length "${length} / 2")
set(le "")
foreach(shift IN ITEMS 0 8 16 24)
  math(EXPR byte "(${length} >> ${shift}) & 255" OUTPUT_FORMAT HEXADECIMAL)
  string(REGEX REPLACE "^0x" "" byte "${byte}")
  string(LENGTH "${byte}" digits)
  if(digits EQUAL 1)
    set(byte "0${byte}")
  endif()
  string(APPEND le "${byte}")
endforeach()
string(SUBSTRING "${hex}" 0 64 head)
string(SUBSTRING "${hex}" 72 -1 tail)
string(REGEX REPLACE "(..)" "\\\\x\\1" bytes "${head}${le}${tail}")
set(damaged "${WORK_DIR}/damaged.fatbin")
execute_process(COMMAND printf "${bytes}" OUTPUT_FILE "${damaged}" RESULT_VARIABLE rc)
file(SIZE "${damaged}" damaged_size)
file(SIZE "${dir}/build/compress_all/fill.fatbin" size)
if(NOT rc EQUAL 0 OR NOT damaged_size EQUAL size)
  message(FATAL_ERROR "could not write the damaged copy (${damaged_size} of ${size} bytes)")
endif()
execute_process(COMMAND "${CUBIND_GEN}" -I "${PREFIX}/include" --kernels-from "${damaged}"
                        -o "${WORK_DIR}/damaged" "${dir}/fill.cu"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "damaged\\.fatbin': its cubin for sm_80 is compressed \\(Zstandard\\) but does not decompress"
   OR EXISTS "${WORK_DIR}/damaged/fill.cubind.h")
  message(FATAL_ERROR "a damaged compressed cubin: expected an error, got (${rc}):\n${err}")
endif()
message(STATUS "damaged: ${err}")

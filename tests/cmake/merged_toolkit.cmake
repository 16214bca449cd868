# The toolkit seen through a merged prefix, as Debian's nvidia-cuda-toolkit, conda and container
# images lay it out: bin/nvcc a wrapper script, include/ a directory of symlinks into the real
# toolkit's headers. add_gpu_kernels() must still find the real toolkit (nvcc --dryrun's TOP),
# and cubind-gen given the merged prefix as --cuda-path must still recognise the toolkit's
# C headers (a struct cudaExtent parameter by value is bound, with #include <driver_types.h>).
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -DNVCC=... -P merged_toolkit.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR GENERATOR C_COMPILER NVCC)
file(REMOVE_RECURSE "${WORK_DIR}")
set(merged "${WORK_DIR}/merged")
set(dir "${WORK_DIR}/src")

# The real toolkit, whatever the nvcc given here is (it may itself be such a wrapper).
cubind_run(dryrun "${NVCC}" --dryrun -x cu -c /dev/null -o /dev/null)
if(NOT dryrun MATCHES "#\\$ TOP=([^\r\n]*)")
  message(FATAL_ERROR "nvcc --dryrun printed no TOP=:\n${dryrun}")
endif()
get_filename_component(toolkit "${CMAKE_MATCH_1}" REALPATH)

file(MAKE_DIRECTORY "${merged}/bin" "${merged}/include")
file(WRITE "${merged}/bin/nvcc" "#!/bin/sh\nexec '${toolkit}/bin/nvcc' \"$@\"\n")
file(CHMOD "${merged}/bin/nvcc" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
file(GLOB entries RELATIVE "${toolkit}/include" "${toolkit}/include/*")
foreach(entry IN LISTS entries)
  file(CREATE_LINK "${toolkit}/include/${entry}" "${merged}/include/${entry}" SYMBOLIC)
endforeach()
foreach(entry IN ITEMS nvvm bin/crt) # what clang's CUDA detection looks for besides include/
  if(EXISTS "${toolkit}/${entry}")
    file(CREATE_LINK "${toolkit}/${entry}" "${merged}/${entry}" SYMBOLIC)
  endif()
endforeach()
# A merged prefix (/usr, /usr/local, a conda environment) has a lib directory of its own, and
# clang 14's CUDA detection requires one (lib64 or lib); clang 15 and later do not look.
file(MAKE_DIRECTORY "${merged}/lib64")
file(WRITE "${merged}/version.json" "{}\n")

file(WRITE "${dir}/extent.cu" [=[
#include <cubind/annotations.h>
extern "C" __global__ void fill_extent(CUBIND_OUT float *out, struct cudaExtent e)
{
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < e.width * e.height * e.depth) out[i] = (float)i;
}
]=])
file(WRITE "${dir}/main.c" [=[
#include "extent.cubind.h"
int main(void)
{
  struct cudaExtent e = {2, 3, 4};
  return fill_extent_launch == 0 || e.width != 2;
}
]=])
file(WRITE "${dir}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.20)
project(merged_toolkit LANGUAGES C)
find_package(cubind 0.2 REQUIRED)
add_gpu_kernels(extent_kernels SOURCES extent.cu ARCHS 75)
add_executable(extent_main main.c)
target_link_libraries(extent_main PRIVATE extent_kernels)
]=])

cubind_run(output "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
           "-DCUBIND_NVCC_EXECUTABLE=${merged}/bin/nvcc")
cubind_run(output "${CMAKE_COMMAND}" --build "${dir}/build" --verbose)
if(NOT output MATCHES "--cuda-path \"?${toolkit}[\" ]")
  message(FATAL_ERROR "add_gpu_kernels gave cubind-gen another toolkit than ${toolkit}:\n${output}")
endif()
file(READ "${dir}/build/extent_kernels/extent.cubind.h" header)
if(NOT header MATCHES "#include <driver_types.h>" OR
   NOT header MATCHES "fill_extent_launch\\(const cubind_config \\*cfg, float \\*out, struct cudaExtent e\\)")
  message(FATAL_ERROR "fill_extent is not bound with struct cudaExtent:\n${header}")
endif()

# cubind-gen itself, told the merged prefix is the toolkit.
find_program(gen cubind-gen PATHS "${PREFIX}/bin" NO_DEFAULT_PATH REQUIRED)
file(MAKE_DIRECTORY "${WORK_DIR}/direct")
cubind_run(output "${gen}" --cuda-path "${merged}" --no-cache -I "${PREFIX}/include"
           -o "${WORK_DIR}/direct" "${dir}/extent.cu")
file(READ "${WORK_DIR}/direct/extent.cubind.h" header)
if(NOT header MATCHES "#include <driver_types.h>" OR NOT header MATCHES "struct cudaExtent e\\)")
  message(FATAL_ERROR "--cuda-path ${merged}: fill_extent is not bound:\n${output}\n${header}")
endif()
message(STATUS "merged prefix: the toolkit is ${toolkit}; struct cudaExtent bound both ways")

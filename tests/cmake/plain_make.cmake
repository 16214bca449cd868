# examples/Makefile, the recipe without CMake, builds doublify against the installed package in
# PREFIX (cubind-gen, nvcc, cc and pkg-config), and the program runs without a GPU (exit 77).
#   cmake -DPREFIX=... -DLIBDIR=lib -DWORK_DIR=... -DNVCC=nvcc -DC_COMPILER=cc -P plain_make.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX LIBDIR WORK_DIR NVCC C_COMPILER)
find_program(MAKE_PROGRAM NAMES gmake make REQUIRED)
file(REMOVE_RECURSE "${WORK_DIR}")
get_filename_component(makefile "${CMAKE_CURRENT_LIST_DIR}/../../examples/Makefile" ABSOLUTE)
cubind_run(output "${MAKE_PROGRAM}" -f "${makefile}" "CUBIND_PREFIX=${PREFIX}" "OUT=${WORK_DIR}"
           "NVCC=${NVCC}" "CC=${C_COMPILER}" "ARCHS=75 90"
           "PKG_CONFIG=PKG_CONFIG_PATH=${PREFIX}/${LIBDIR}/pkgconfig pkg-config")
message(STATUS "${output}")
cubind_expect_no_gpu(doublify "${WORK_DIR}/doublify")

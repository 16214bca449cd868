# examples/Makefile, the recipe without CMake, builds doublify against the installed package in
# PREFIX (nvcc, cubind-gen with --nvcc-options and --check-names, cc and pkg-config); the program
# needs no libcubind (pkg-config's cubind is the static runtime) and runs without a GPU (exit 77).
#   cmake -DPREFIX=... -DLIBDIR=lib -DWORK_DIR=... -DNVCC=nvcc -DC_COMPILER=cc -DMAKE=make
#         -DPKG_CONFIG=pkg-config -DREADELF=readelf -P plain_make.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX LIBDIR WORK_DIR NVCC C_COMPILER MAKE PKG_CONFIG READELF)
cubind_require_tool(MAKE "make" make)
cubind_require_tool(PKG_CONFIG "pkg-config" pkg-config)
cubind_require_tool(READELF "readelf" binutils)
file(REMOVE_RECURSE "${WORK_DIR}")
get_filename_component(makefile "${CMAKE_CURRENT_LIST_DIR}/../../examples/Makefile" ABSOLUTE)
cubind_run(output "${MAKE}" -f "${makefile}" "CUBIND_PREFIX=${PREFIX}" "OUT=${WORK_DIR}"
           "NVCC=${NVCC}" "CC=${C_COMPILER}" "ARCHS=75 90" "NVCCFLAGS=-DUNUSED_MACRO=1"
           "PKG_CONFIG=PKG_CONFIG_PATH=${PREFIX}/${LIBDIR}/pkgconfig ${PKG_CONFIG}")
message(STATUS "${output}")
cubind_expect("${output}" "--check-names" "the Makefile checks the C names")
cubind_run(dynamic "${READELF}" -d "${WORK_DIR}/doublify")
if(dynamic MATCHES "libcubind")
  message(FATAL_ERROR "the Makefile's doublify needs libcubind:\n${dynamic}")
endif()
cubind_expect_no_gpu(doublify "${WORK_DIR}/doublify")

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

# After an edit of the .cu one make remakes what depends on it, and the next finds all up to date
# (cubind-gen leaves unchanged outputs untouched; the Makefile marks them made). On a copy of
# examples/, whose files the test may touch.
file(COPY "${CMAKE_CURRENT_LIST_DIR}/../../examples" DESTINATION "${WORK_DIR}/copy")
set(make_args -f "${WORK_DIR}/copy/examples/Makefile" "CUBIND_PREFIX=${PREFIX}"
              "OUT=${WORK_DIR}/incremental" "NVCC=${NVCC}" "CC=${C_COMPILER}" "ARCHS=90"
              "PKG_CONFIG=PKG_CONFIG_PATH=${PREFIX}/${LIBDIR}/pkgconfig ${PKG_CONFIG}")
cubind_run(output "${MAKE}" ${make_args})
file(TOUCH "${WORK_DIR}/copy/examples/doublify/doublify.cu")
cubind_run(output "${MAKE}" ${make_args})
cubind_expect("${output}" "nvcc|NVCC|-fatbin" "make after a .cu edit runs nvcc again")
execute_process(COMMAND "${MAKE}" -q ${make_args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  execute_process(COMMAND "${MAKE}" -n ${make_args} OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message(FATAL_ERROR "make after a .cu edit and a make is not up to date; it would run:\n${out}")
endif()
message(STATUS "make after a .cu edit and a make: up to date")

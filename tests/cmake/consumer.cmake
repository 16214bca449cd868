# Builds tests/cmake/consumer against the installed package in PREFIX (find_package(cubind),
# add_gpu_kernels, link), then the same program with plain cc and pkg-config against the shared
# runtime, and runs both without a GPU (exit 77 expected).
#   cmake -DPREFIX=... -DLIBDIR=lib -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -P consumer.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX LIBDIR WORK_DIR GENERATOR C_COMPILER)
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")

cubind_run(output "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/consumer" -B "${build}"
           -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}")
cubind_run(output "${CMAKE_COMMAND}" --build "${build}")
cubind_expect_no_gpu(consumer "${build}/app")

# The non-CMake recipe: the generated files + pkg-config.
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${PREFIX}/${LIBDIR}/pkgconfig"
                          "${PKG_CONFIG}" --cflags --libs cubind
                  OUTPUT_VARIABLE flags RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs cubind failed")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  cubind_run(output "${C_COMPILER}" -std=c99 -o "${WORK_DIR}/app_pc"
             "${CMAKE_CURRENT_LIST_DIR}/consumer/main.c" "${build}/vec_kernels/vec.cubind.c"
             "${build}/vec_kernels/vec.fatbin.c" "-I${build}/vec_kernels" ${flags})
  cubind_expect_no_gpu(consumer "LD_LIBRARY_PATH=${PREFIX}/${LIBDIR}" "${WORK_DIR}/app_pc")
else()
  message(STATUS "no pkg-config: the pkg-config recipe is not checked")
endif()

# Installs the build tree into a fresh PREFIX and checks that the package is complete.
#   cmake -DBUILD_DIR=build -DPREFIX=/tmp/p -DLIBDIR=lib -P install.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(BUILD_DIR PREFIX LIBDIR)
file(REMOVE_RECURSE "${PREFIX}")
cubind_run(output "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}")
foreach(file IN ITEMS
    bin/cubind-gen
    include/cubind/cubind.h include/cubind/generated.h include/cubind/annotations.h
    ${LIBDIR}/libcubind_runtime.a ${LIBDIR}/libcubind.so
    ${LIBDIR}/cmake/cubind/cubindConfig.cmake ${LIBDIR}/cmake/cubind/cubindConfigVersion.cmake
    ${LIBDIR}/cmake/cubind/cubindTargets.cmake ${LIBDIR}/cmake/cubind/CubindGpuKernels.cmake
    ${LIBDIR}/pkgconfig/cubind.pc)
  if(NOT EXISTS "${PREFIX}/${file}")
    message(FATAL_ERROR "not installed: ${PREFIX}/${file}\n${output}")
  endif()
endforeach()

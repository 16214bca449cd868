# CubindPackage.cmake: what `cmake --install` adds beyond the targets themselves, so that other
# projects can use an installed cubind:
#
#   <prefix>/lib/cmake/cubind/  cubindConfig.cmake (+ ConfigVersion): find_package(cubind) gives
#                               cubind::runtime, cubind::runtime_shared, cubind::gen and
#                               add_gpu_kernels()
#   <prefix>/lib/pkgconfig/cubind.pc  for non-CMake builds:
#                               cc main.c vec.cubind.c vec.fatbin.c $(pkg-config --cflags --libs cubind)
#
# Included by the top-level CMakeLists.txt. runtime/ and generator/ install their own targets
# into the export set cubindTargets; this file installs that set, the config files, the pkg-config
# file and cmake/CubindGpuKernels.cmake.

include(CMakePackageConfigHelpers)

set(CUBIND_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/cubind" CACHE STRING
    "Where the CMake package files go, relative to the install prefix")

# The names users write after the cubind:: namespace.
foreach(pair IN ITEMS cubind_runtime:runtime cubind_runtime_shared:runtime_shared cubind-gen:gen)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 target)
  list(GET pair 1 export_name)
  if(TARGET ${target})
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  endif()
endforeach()

install(EXPORT cubindTargets NAMESPACE cubind:: DESTINATION "${CUBIND_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/cubindConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/cubindConfig.cmake"
  INSTALL_DESTINATION "${CUBIND_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a new minor version may change the generated-code ABI, so only the same minor matches.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/cubindConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/cubindConfig.cmake"
              "${PROJECT_BINARY_DIR}/cubindConfigVersion.cmake"
              "${CMAKE_CURRENT_LIST_DIR}/CubindGpuKernels.cmake"
        DESTINATION "${CUBIND_INSTALL_CMAKEDIR}")

# pkg-config: prefix relative to the .pc file, so that the installed tree can be moved.
set(CUBIND_PKGCONFIG_DIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH CUBIND_PC_TO_PREFIX "/prefix/${CUBIND_PKGCONFIG_DIR}" "/prefix")
get_target_property(CUBIND_PC_CUDA_INCLUDES CUDA::toolkit INTERFACE_INCLUDE_DIRECTORIES)
list(TRANSFORM CUBIND_PC_CUDA_INCLUDES PREPEND "-I")
list(JOIN CUBIND_PC_CUDA_INCLUDES " " CUBIND_PC_CUDA_CFLAGS)
configure_file("${CMAKE_CURRENT_LIST_DIR}/cubind.pc.in" "${PROJECT_BINARY_DIR}/cubind.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/cubind.pc" DESTINATION "${CUBIND_PKGCONFIG_DIR}")

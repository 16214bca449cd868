# CubindPackage.cmake: what `cmake --install` adds beyond the targets themselves, so that other
# projects can use an installed cubind:
#
#   <prefix>/lib/cmake/cubind/  cubindConfig.cmake (+ ConfigVersion): find_package(cubind) gives
#                               cubind::runtime, cubind::runtime_shared, cubind::gen and
#                               add_gpu_kernels()
#   <prefix>/lib/pkgconfig/cubind.pc  for non-CMake builds, the static runtime (as
#                               cubind::runtime): a program needs only the CUDA driver
#                               cc main.c vec.cubind.c vec.fatbin.c $(pkg-config --cflags --libs cubind)
#   <prefix>/lib/pkgconfig/cubind-shared.pc  the same with libcubind.so (cubind::runtime_shared)
#   <prefix>/share/doc/cubind/  LICENSE, CHANGELOG.md
#
# Included by the top-level CMakeLists.txt. runtime/ and generator/ install their own targets
# into the export set cubindTargets; this file installs that set, the config files, the pkg-config
# files, cmake/CubindGpuKernels.cmake and its helper scripts, and runs ldconfig when the shared
# library went into the loader's cache (cmake/CubindLdconfig.cmake).

include(CMakePackageConfigHelpers)

set(CUBIND_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/cubind" CACHE STRING
    "Where the CMake package files go, relative to the install prefix")

# The names users write after the cubind:: namespace.
foreach(pair IN ITEMS cubind_runtime:runtime cubind_runtime_shared:runtime_shared cubind-gen:gen
                     cubind_array:array)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 target)
  list(GET pair 1 export_name)
  if(TARGET ${target})
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  endif()
endforeach()

install(EXPORT cubindTargets NAMESPACE cubind:: DESTINATION "${CUBIND_INSTALL_CMAKEDIR}")

# Both package files begin by asking for C or C++: the runtime's targets and the stubs are C,
# and FindThreads stops a CUDA-only project (project(x LANGUAGES CUDA)) with its own message.
set(CUBIND_CONFIG_LANGUAGE_CHECK [=[
get_property(_cubind_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if(NOT "C" IN_LIST _cubind_languages AND NOT "CXX" IN_LIST _cubind_languages)
  set(cubind_FOUND FALSE)
  set(cubind_NOT_FOUND_MESSAGE "cubind needs the C or CXX language enabled before find_package(cubind): its runtime and the generated stubs are C (project(<name> LANGUAGES C CUDA))")
  return()
endif()]=])
configure_package_config_file(
  "${CMAKE_CURRENT_LIST_DIR}/cubindConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/package/cubindConfig.cmake"
  INSTALL_DESTINATION "${CUBIND_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_BINDIR)

# The build tree is a package too (cmake -Dcubind_DIR=<this build>): its targets as they are
# here, this build's cubind-gen, and this source tree's add_gpu_kernels().
export(EXPORT cubindTargets NAMESPACE cubind:: FILE "${PROJECT_BINARY_DIR}/cubindTargets.cmake")
set(_build_tree_gen "")
if(TARGET cubind-gen)
  set(_build_tree_gen "
if(NOT TARGET cubind::gen)
  add_executable(cubind::gen IMPORTED)
  set_target_properties(cubind::gen PROPERTIES IMPORTED_LOCATION \"$<TARGET_FILE:cubind-gen>\")
endif()")
endif()
get_property(_multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
set(_one_config "")
if(_multi_config) # one file: the first configuration's cubind-gen
  list(GET CMAKE_CONFIGURATION_TYPES 0 _first_config)
  set(_one_config CONDITION "$<CONFIG:${_first_config}>")
endif()
file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/cubindConfig.cmake" ${_one_config}
     CONTENT "# cubindConfig.cmake of a cubind build tree (made by cmake/CubindPackage.cmake)
${CUBIND_CONFIG_LANGUAGE_CHECK}
include(CMakeFindDependencyMacro)
find_dependency(Threads)
find_dependency(CUDAToolkit)
include(\"\${CMAKE_CURRENT_LIST_DIR}/cubindTargets.cmake\")${_build_tree_gen}
include(\"${CMAKE_CURRENT_LIST_DIR}/CubindGpuKernels.cmake\")
")
# 0.x: a new minor version may change the generated-code ABI, so only the same minor matches.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/cubindConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/package/cubindConfig.cmake"
              "${PROJECT_BINARY_DIR}/cubindConfigVersion.cmake"
              "${CMAKE_CURRENT_LIST_DIR}/CubindGpuKernels.cmake"
              "${CMAKE_CURRENT_LIST_DIR}/CubindCompileCommands.cmake"
        DESTINATION "${CUBIND_INSTALL_CMAKEDIR}")
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/CHANGELOG.md"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}")

# pkg-config: prefix relative to the .pc file, so that the installed tree can be moved.
set(CUBIND_PKGCONFIG_DIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
file(RELATIVE_PATH CUBIND_PC_TO_PREFIX "/prefix/${CUBIND_PKGCONFIG_DIR}" "/prefix")
# The toolkit's include directory (cuda.h) as a system one: cuda.h is not -pedantic clean.
get_target_property(CUBIND_PC_CUDA_INCLUDES CUDA::toolkit INTERFACE_INCLUDE_DIRECTORIES)
list(TRANSFORM CUBIND_PC_CUDA_INCLUDES PREPEND "-isystem ")
list(JOIN CUBIND_PC_CUDA_INCLUDES " " CUBIND_PC_CUDA_CFLAGS)
get_target_property(CUBIND_PC_STATIC_NAME cubind_runtime OUTPUT_NAME)
if(NOT CUBIND_PC_STATIC_NAME)
  set(CUBIND_PC_STATIC_NAME cubind_runtime)
endif()
set(CUBIND_PC_STATIC_LIB "${CMAKE_STATIC_LIBRARY_PREFIX}${CUBIND_PC_STATIC_NAME}${CMAKE_STATIC_LIBRARY_SUFFIX}")
foreach(pc IN ITEMS cubind cubind-shared)
  configure_file("${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in" "${PROJECT_BINARY_DIR}/${pc}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/${pc}.pc" DESTINATION "${CUBIND_PKGCONFIG_DIR}")
endforeach()

# After the shared library: ldconfig, when the loader finds it through its cache.
install(CODE "execute_process(COMMAND \"\${CMAKE_COMMAND}\"
                \"-DLIBDIR=\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}\"
                -P \"${CMAKE_CURRENT_LIST_DIR}/CubindLdconfig.cmake\")")

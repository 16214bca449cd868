# Builds tests/cmake/consumer against the installed package in PREFIX (find_package(cubind 0.2),
# add_gpu_kernels, link; cubind::array and a CUBIND_VECTORIZE kernel too) with one generator,
# and as a project of C++ alone; then the same program with plain cc and pkg-config:
# `cubind` (the static runtime: no libcubind among the program's needed libraries) and
# `cubind-shared`, both compiled with -std=c99 -pedantic -Werror; runs each without a GPU (exit
# 77 expected). Also: the package version file (0.2 found, 0.1 and 0.3 not) and
# cubind-gen --version against the version the build was configured with.
#   cmake -DPREFIX=... -DLIBDIR=lib -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc
#         -DPKG_CONFIG=... -DREADELF=... -DVERSION=0.2.0 -P consumer.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX LIBDIR WORK_DIR GENERATOR C_COMPILER PKG_CONFIG READELF VERSION)
cubind_require_tool(PKG_CONFIG "pkg-config" pkg-config)
cubind_require_tool(READELF "readelf" binutils)
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")

cubind_build_consumer("${build}" "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${PREFIX}"
                      "-DCMAKE_C_COMPILER=${C_COMPILER}")

# needed_libraries(<out> <program>): the NEEDED entries of its dynamic section.
function(needed_libraries out program)
  cubind_run(dynamic "${READELF}" -d "${program}")
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]\n]*\\]" needed "${dynamic}")
  set(${out} "${needed}" PARENT_SCOPE)
endfunction()

# The non-CMake recipe: the generated files + pkg-config, under -pedantic -Werror (the toolkit's
# cuda.h comes in as a system header).
foreach(module IN ITEMS cubind cubind-shared)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${PREFIX}/${LIBDIR}/pkgconfig"
                          "${PKG_CONFIG}" --cflags --libs ${module}
                  OUTPUT_VARIABLE flags RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs ${module} failed")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(program "${WORK_DIR}/app_${module}")
  cubind_run(output "${C_COMPILER}" -std=c99 -Wall -Wextra -pedantic -Werror -o "${program}"
             "${CMAKE_CURRENT_LIST_DIR}/consumer/main.c" "${build}/vec_kernels/vec.cubind.c"
             "${build}/vec_kernels/vec.fatbin.c" "-I${build}/vec_kernels"
             "-I${CMAKE_CURRENT_LIST_DIR}/consumer/include" ${flags})
  needed_libraries(needed "${program}")
  if(module STREQUAL "cubind")
    if(needed MATCHES "libcubind")
      message(FATAL_ERROR "pkg-config cubind: the program needs libcubind: ${needed}")
    endif()
    cubind_expect_no_gpu(consumer "${program}")
  else()
    cubind_expect("${needed}" "libcubind\\.so" "pkg-config cubind-shared links libcubind.so")
    cubind_expect_no_gpu(consumer "LD_LIBRARY_PATH=${PREFIX}/${LIBDIR}" "${program}")
  endif()
  message(STATUS "pkg-config ${module}: ${needed}")
endforeach()

# A project of C++ alone (project(... LANGUAGES CXX), no C enabled): the stubs build as C++.
set(dir "${WORK_DIR}/cxx_only")
set(src "${CMAKE_CURRENT_LIST_DIR}/consumer")
file(WRITE "${dir}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.20)
project(cxx_only LANGUAGES CXX)
find_package(cubind 0.2 REQUIRED)
add_gpu_kernels(vec_kernels SOURCES \"${src}/vec.cu\" ARCHS 90
                INCLUDE_DIRECTORIES \"${src}/include\" COMPILE_OPTIONS -DVEC_T=float)
set_source_files_properties(\"${src}/main.c\" PROPERTIES LANGUAGE CXX)
add_executable(app \"${src}/main.c\")
target_link_libraries(app PRIVATE vec_kernels)
")
cubind_run(output "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${PREFIX}")
cubind_run(output "${CMAKE_COMMAND}" --build "${dir}/build")
cubind_expect_no_gpu(consumer "${dir}/build/app")
message(STATUS "a project of C++ alone: built, the stubs compiled as C++")

# A header the build makes (add_custom_command), listed with target_sources(): made before nvcc
# and cubind-gen read it (with Unix Makefiles the .cu's nvcc step ran first: "params.h: No such
# file or directory").
set(dir "${WORK_DIR}/made_header")
file(WRITE "${dir}/params.h.in" "#define SCALE 2\n")
file(WRITE "${dir}/k.cu" "#include \"params.h\"\nextern \"C\" __global__ void k(float *a) { a[0] = SCALE; }\n")
file(WRITE "${dir}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.20)
project(made_header LANGUAGES C)
find_package(cubind 0.2 REQUIRED)
set(made ${CMAKE_CURRENT_BINARY_DIR}/gen/params.h)
add_custom_command(OUTPUT ${made}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/gen
  COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_CURRENT_SOURCE_DIR}/params.h.in ${made}
  DEPENDS params.h.in)
add_gpu_kernels(k SOURCES k.cu ARCHS 90 INCLUDE_DIRECTORIES ${CMAKE_CURRENT_BINARY_DIR}/gen)
target_sources(k PRIVATE ${made})
]=])
cubind_run(output "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}")
cubind_run(output "${CMAKE_COMMAND}" --build "${dir}/build" -j 1)
message(STATUS "a header the build makes: made before nvcc and cubind-gen")

# A strict C90 program (CMAKE_C_STANDARD 90, no extensions): cubind::runtime requires c_std_99
# of its users, so CMake compiles it as C99 (its headers' static inline were "unknown type name
# 'inline'" under -std=c90).
set(dir "${WORK_DIR}/c90")
file(WRITE "${dir}/k.cu" "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n")
file(WRITE "${dir}/main.c" "#include \"k.cubind.h\"\nint main(void) { return k_launch == 0; }\n")
file(WRITE "${dir}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.20)
project(c90 LANGUAGES C)
set(CMAKE_C_STANDARD 90)
set(CMAKE_C_EXTENSIONS OFF)
find_package(cubind 0.2 REQUIRED)
add_gpu_kernels(k SOURCES k.cu ARCHS 90)
add_executable(app main.c)
target_link_libraries(app PRIVATE k)
]=])
cubind_run(output "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}")
cubind_run(output "${CMAKE_COMMAND}" --build "${dir}/build")
message(STATUS "a C90 program: compiled as C99")

# find_package(cubind <version>): 0.x releases are compatible within one minor version only.
string(REGEX MATCH "^[0-9]+\\.[0-9]+" minor "${VERSION}")
string(REGEX REPLACE "^([0-9]+)\\.([0-9]+).*" "\\1" major "${VERSION}")
string(REGEX REPLACE "^([0-9]+)\\.([0-9]+).*" "\\2" minor_number "${VERSION}")
math(EXPR older "${minor_number} - 1")
math(EXPR newer "${minor_number} + 1")
# (ZIP_LISTS takes the names of list variables: literal lists would give no iteration at all)
set(asked_versions ${minor} ${major}.${older} ${major}.${newer})
set(found_expected 1 0 0)
foreach(asked found IN ZIP_LISTS asked_versions found_expected)
  set(dir "${WORK_DIR}/version_${asked}")
  file(WRITE "${dir}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.20)\nproject(v LANGUAGES C)\n"
       "find_package(cubind ${asked} REQUIRED)\nmessage(STATUS \"cubind \${cubind_VERSION}\")\n")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}"
                          "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(found AND NOT (rc EQUAL 0 AND output MATCHES "cubind ${VERSION}"))
    message(FATAL_ERROR "find_package(cubind ${asked}) should find ${VERSION}:\n${output}")
  elseif(NOT found AND rc EQUAL 0)
    message(FATAL_ERROR "find_package(cubind ${asked}) should not accept ${VERSION}:\n${output}")
  endif()
  message(STATUS "find_package(cubind ${asked}): found ${found}, as expected")
endforeach()

cubind_run(output "${PREFIX}/bin/cubind-gen" --version)
cubind_expect("${output}" "^cubind-gen ${VERSION}\n" "cubind-gen --version")

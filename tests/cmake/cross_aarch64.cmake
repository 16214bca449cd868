# Cross-compiles this tree for aarch64 (cmake/toolchains/aarch64-linux-gnu.cmake) with the
# build host's cubind-gen, builds the doublify example, and checks that it is an aarch64 ELF.
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=Ninja -DCUBIND_GEN=... -P cross_aarch64.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(SOURCE_DIR WORK_DIR GENERATOR CUBIND_GEN)
find_program(AARCH64_CC aarch64-linux-gnu-gcc)
find_program(AARCH64_CXX aarch64-linux-gnu-g++)
cubind_require_tool(AARCH64_CC "the aarch64 cross C compiler" gcc-aarch64-linux-gnu)
cubind_require_tool(AARCH64_CXX "the aarch64 cross C++ compiler" g++-aarch64-linux-gnu)
file(REMOVE_RECURSE "${WORK_DIR}")
cubind_run(output "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${WORK_DIR}" -G "${GENERATOR}"
           "-DCMAKE_TOOLCHAIN_FILE=${SOURCE_DIR}/cmake/toolchains/aarch64-linux-gnu.cmake"
           -DCUBIND_BUILD_GENERATOR=OFF "-DCUBIND_GEN_EXECUTABLE=${CUBIND_GEN}"
           -DCUBIND_BUILD_BENCHMARKS=OFF -DBUILD_TESTING=OFF -DCUBIND_DEFAULT_ARCHS=75)
cubind_run(output "${CMAKE_COMMAND}" --build "${WORK_DIR}" --target doublify)

# ELF header: e_machine, at byte 18, is 183 (0xb7, EM_AARCH64), little-endian.
file(READ "${WORK_DIR}/examples/doublify" header LIMIT 20 HEX)
string(SUBSTRING "${header}" 36 4 machine)
if(NOT header MATCHES "^7f454c46" OR NOT machine STREQUAL "b700")
  message(FATAL_ERROR "examples/doublify is not an aarch64 ELF file (header ${header})")
endif()
message(STATUS "doublify cross-compiled for aarch64")

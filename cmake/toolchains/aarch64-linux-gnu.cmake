# Toolchain file: cross-compiles cubind's runtime, the generated stubs and programs using them
# for 64-bit ARM Linux (Jetson-class boards) with Debian's cross compilers
# (apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu). cubind-gen and nvcc run on
# the build host: nvcc's fatbin holds device code only, so it does not care about the host CPU.
#
#   # 1. cubind-gen for the build host
#   cmake -S . -B build-host -G Ninja -DCUBIND_BUILD_EXAMPLES=OFF -DCUBIND_BUILD_BENCHMARKS=OFF \
#         -DBUILD_TESTING=OFF
#   cmake --build build-host --target cubind-gen
#   # 2. everything else for aarch64, running that cubind-gen
#   cmake -S . -B build-aarch64 -G Ninja \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#         -DCUBIND_BUILD_GENERATOR=OFF -DCUBIND_GEN_EXECUTABLE=$PWD/build-host/generator/cubind-gen \
#         -DCUBIND_BUILD_BENCHMARKS=OFF -DBUILD_TESTING=OFF
#   cmake --build build-aarch64          # libcubind, the examples: aarch64 ELF files
#
# With an installed cubind, a project does the same: this toolchain file, find_package(cubind)
# from an aarch64 install, and -DCUBIND_GEN_EXECUTABLE=<a build-host cubind-gen>.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Libraries and headers from the target's sysroot; programs (nvcc, cubind-gen) from the host.
# The CUDA toolkit's root is searched too: its cuda.h is the same for every CPU.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

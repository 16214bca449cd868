# The build tree as a package: tests/cmake/consumer configured with -Dcubind_DIR=<cubind's build
# directory> (no install), built, and run without a GPU (exit 77 expected). The build tree's
# cubindConfig.cmake was the installed package's, which names files only an install makes.
# A CUDA-only project that finds the package is told to enable C or C++.
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -DNVCC=nvcc
#         -P build_tree.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(BUILD_DIR WORK_DIR GENERATOR C_COMPILER NVCC)
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
cubind_build_consumer("${build}" "${GENERATOR}" "-Dcubind_DIR=${BUILD_DIR}"
                      "-DCMAKE_C_COMPILER=${C_COMPILER}")
message(STATUS "build_tree: tests/cmake/consumer built against ${BUILD_DIR} and run")

# A CUDA-only project: cubind's own message that it needs C or C++ (FindThreads, which its
# package finds, stopped such a project with a message about itself).
set(cuda_only "${WORK_DIR}/cuda_only")
file(WRITE "${cuda_only}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.20)
project(cuda_only LANGUAGES CUDA)
set(CMAKE_CUDA_ARCHITECTURES 90)
find_package(cubind 0.2 REQUIRED)
")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${cuda_only}" -B "${cuda_only}/build"
                        -G "${GENERATOR}" "-Dcubind_DIR=${BUILD_DIR}" "-DCMAKE_CUDA_COMPILER=${NVCC}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(rc EQUAL 0)
  message(FATAL_ERROR "build_tree: a CUDA-only project configured:\n${output}")
endif()
string(REGEX REPLACE "[ \n]+" " " flat "${output}")
cubind_expect("${flat}" "cubind needs the C or CXX language enabled before find_package\\(cubind\\)"
              "build_tree: a CUDA-only project")
message(STATUS "build_tree: a CUDA-only project is told to enable C or CXX")

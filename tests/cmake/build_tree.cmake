# The build tree as a package: tests/cmake/consumer configured with -Dcubind_DIR=<cubind's build
# directory> (no install), built, and run without a GPU (exit 77 expected). The build tree's
# cubindConfig.cmake was the installed package's, which names files only an install makes.
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -P build_tree.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(BUILD_DIR WORK_DIR GENERATOR C_COMPILER)
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
cubind_build_consumer("${build}" "${GENERATOR}" "-Dcubind_DIR=${BUILD_DIR}"
                      "-DCMAKE_C_COMPILER=${C_COMPILER}")
message(STATUS "build_tree: tests/cmake/consumer built against ${BUILD_DIR} and run")

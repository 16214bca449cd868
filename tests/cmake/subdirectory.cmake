# Builds tests/cmake/subdirectory: cubind through add_subdirectory() (cubind-gen and the runtime
# built as part of the project), then runs the program without a GPU (exit 77 expected).
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -P subdirectory.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(SOURCE_DIR WORK_DIR GENERATOR C_COMPILER)
file(REMOVE_RECURSE "${WORK_DIR}")
cubind_run(output "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/subdirectory" -B "${WORK_DIR}"
           -G "${GENERATOR}" "-DCUBIND_SOURCE_DIR=${SOURCE_DIR}" "-DCMAKE_C_COMPILER=${C_COMPILER}")
cubind_run(output "${CMAKE_COMMAND}" --build "${WORK_DIR}" --target app)
cubind_expect_no_gpu(consumer "${WORK_DIR}/app")

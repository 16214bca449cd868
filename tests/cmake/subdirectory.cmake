# Builds tests/cmake/subdirectory: cubind through add_subdirectory() (cubind-gen and the runtime
# built as part of the project), then runs the program without a GPU (exit 77 expected); its
# .cu files' nvcc steps are in compile_commands.json.
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -P subdirectory.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(SOURCE_DIR WORK_DIR GENERATOR C_COMPILER)
file(REMOVE_RECURSE "${WORK_DIR}")
cubind_run(output "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/subdirectory" -B "${WORK_DIR}"
           -G "${GENERATOR}" "-DCUBIND_SOURCE_DIR=${SOURCE_DIR}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
           -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
cubind_run(output "${CMAKE_COMMAND}" --build "${WORK_DIR}" --target app cubind_compile_commands)
cubind_expect_no_gpu(consumer "${WORK_DIR}/app")
# (the database step runs at the top level, outside cubind's directory)
cubind_database_arguments(arguments "${WORK_DIR}" "/kernels\\.cu$")
cubind_expect("${arguments}" "\"-DVEC_T=float\"" "kernels.cu's entry has its COMPILE_OPTIONS")

# add_gpu_kernels() misuse fails at configure time with a clear message: each case configures a
# throw-away project that includes cmake/CubindGpuKernels.cmake from this tree.
#   cmake -DWORK_DIR=... -DGENERATOR=Ninja -P bad_arguments.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(WORK_DIR GENERATOR)
get_filename_component(module "${CMAKE_CURRENT_LIST_DIR}/../../cmake/CubindGpuKernels.cmake"
                       ABSOLUTE)

# expect_error(<name> <call> <regex> [<extra cmake argument>...])
function(expect_error name call regex)
  set(dir "${WORK_DIR}/${name}")
  file(REMOVE_RECURSE "${dir}")
  file(WRITE "${dir}/k.cu" "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n")
  file(WRITE "${dir}/CMakeLists.txt"
       "cmake_minimum_required(VERSION 3.20)\nproject(bad LANGUAGES C)\n"
       "include(\"${module}\")\n${call}\n")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}"
                          ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${name}: configuring succeeded; expected an error matching '${regex}'")
  endif()
  string(REGEX REPLACE "[ \n]+" " " flat "${output}") # CMake wraps its messages' lines
  if(NOT flat MATCHES "${regex}")
    message(FATAL_ERROR "${name}: expected an error matching '${regex}', got:\n${output}")
  endif()
  message(STATUS "${name}: fails as expected")
endfunction()

expect_error(unknown_argument "add_gpu_kernels(k SOURCES k.cu ARCH 90)"
             "add_gpu_kernels\\(k\\): unknown argument\\(s\\): ARCH")
expect_error(unknown_option "add_gpu_kernels(k FAST SOURCES k.cu ARCHS 90)"
             "add_gpu_kernels\\(k\\): unknown argument\\(s\\): FAST")
expect_error(no_sources "add_gpu_kernels(k ARCHS 90)" "add_gpu_kernels\\(k\\): no SOURCES given")
expect_error(sm_prefix "add_gpu_kernels(k SOURCES k.cu ARCHS sm_90)"
             "ARCHS entry 'sm_90' is not an architecture: write a number such as 80, 90 or 90a")
expect_error(bad_suffix "add_gpu_kernels(k SOURCES k.cu ARCHS 90-fast)"
             "ARCHS entry '90-fast' is not an architecture")
expect_error(bad_prefix "add_gpu_kernels(k SOURCES k.cu ARCHS 90 PREFIX 2d_)"
             "PREFIX '2d_' is not the start of a C identifier")
expect_error(empty_prefix "add_gpu_kernels(k SOURCES k.cu ARCHS 90 PREFIX)"
             "PREFIX is given without values")
expect_error(no_nvcc "add_gpu_kernels(k SOURCES k.cu)" "nvcc, the CUDA compiler, was not found"
             -DCUBIND_NVCC_EXECUTABLE=/nonexistent/nvcc)
expect_error(no_generator "add_gpu_kernels(k SOURCES k.cu ARCHS 90)" "no cubind-gen")

# Which architectures add_gpu_kernels() compiles for, read back from the fatbins it builds (the
# sm_XX cubins and compute_XX PTX entries): CMAKE_CUDA_ARCHITECTURES and a target's
# CUDA_ARCHITECTURES with CMake's meaning (90 = SASS + PTX, -real, -virtual, all, all-major, OFF),
# the CUDAARCHS environment variable, ARCHS with its own meaning (90 = SASS; PTX on request), the
# default list, native (an error without a GPU), PTX alone (the source's kernels bound), and a
# project that enables CMake's CUDA language, built with Unix Makefiles (it stopped at generate
# with "CUDA_ARCHITECTURES is empty").
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -DNVCC=nvcc -P archs.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR GENERATOR C_COMPILER NVCC)
file(REMOVE_RECURSE "${WORK_DIR}")
set(kernel "extern \"C\" __global__ void k(float *a) { a[0] = 1; }\n")

# configure_and_build(<dir> <generator> [<extra cmake -D>...]): CUDAARCHS unset unless given.
function(configure_and_build dir generator)
  cubind_run(output "${CMAKE_COMMAND}" -E env --unset=CUDAARCHS ${ENVIRONMENT}
             "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${generator}"
             "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}" ${ARGN})
  cubind_run(output "${CMAKE_COMMAND}" --build "${dir}/build")
endfunction()

# expect_entries(<what> <fatbin> <entry>...): the fatbin holds exactly these entries.
function(expect_entries what fatbin)
  cubind_fatbin_entries(got "${fatbin}")
  set(want ${ARGN})
  list(SORT want COMPARE NATURAL)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${what}: the fatbin holds '${got}', expected '${want}'")
  endif()
  message(STATUS "${what}: ${got}")
endfunction()

# What nvcc itself puts in a fatbin for `-arch=<keyword>`: the reference for all / all-major.
function(nvcc_reference out keyword)
  set(fatbin "${WORK_DIR}/reference_${keyword}.fatbin")
  cubind_run(output "${NVCC}" -fatbin "-arch=${keyword}" -o "${fatbin}" "${WORK_DIR}/k.cu")
  cubind_fatbin_entries(entries "${fatbin}")
  set(${out} "${entries}" PARENT_SCOPE)
endfunction()
file(WRITE "${WORK_DIR}/k.cu" "${kernel}")
nvcc_reference(all_major all-major)
nvcc_reference(all all)
cubind_run(output "${NVCC}" -fatbin -o "${WORK_DIR}/reference_default.fatbin" "${WORK_DIR}/k.cu")
cubind_fatbin_entries(nvcc_default "${WORK_DIR}/reference_default.fatbin")
execute_process(COMMAND "${NVCC}" --list-gpu-code OUTPUT_VARIABLE codes)
string(REGEX MATCHALL "sm_[0-9]+" all_sass "${codes}") # what -arch=all compiles (+ PTX)
set(default "")
foreach(arch IN ITEMS 75 80 86 87 89 90 100 110 120)
  if(codes MATCHES "sm_${arch}\n")
    list(APPEND default sm_${arch})
  endif()
endforeach()

# One project, one target per case (all compile the same k.cu into their own folder).
set(dir "${WORK_DIR}/project")
file(WRITE "${dir}/k.cu" "${kernel}")
file(WRITE "${dir}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.20)
project(archs LANGUAGES C)
find_package(cubind 0.2 REQUIRED)
# CMake's meaning: CMAKE_CUDA_ARCHITECTURES gives each new target its CUDA_ARCHITECTURES
set(CMAKE_CUDA_ARCHITECTURES 80)
add_gpu_kernels(cmake_plain SOURCES k.cu)
set(CMAKE_CUDA_ARCHITECTURES 80-real 90-virtual)
add_gpu_kernels(cmake_suffixes SOURCES k.cu)
set(CMAKE_CUDA_ARCHITECTURES all-major)
add_gpu_kernels(cmake_all_major SOURCES k.cu)
set(CMAKE_CUDA_ARCHITECTURES all) # PTX of the newest major, as nvcc (was the newest: 121)
add_gpu_kernels(cmake_all SOURCES k.cu)
set(CMAKE_CUDA_ARCHITECTURES OFF) # CMake's "no architecture flags": nvcc's own default
add_gpu_kernels(cmake_off SOURCES k.cu)
unset(CMAKE_CUDA_ARCHITECTURES)
add_gpu_kernels(property SOURCES k.cu)
set_target_properties(property PROPERTIES CUDA_ARCHITECTURES 86-real) # after the call
# ARCHS: a number is SASS only, PTX on request
add_gpu_kernels(archs SOURCES k.cu ARCHS 90 75)
add_gpu_kernels(archs_ptx SOURCES k.cu ARCHS 75 90 PTX)
add_gpu_kernels(archs_suffixes SOURCES k.cu ARCHS 80-real 90-virtual)
add_gpu_kernels(archs_all SOURCES k.cu ARCHS all)
# PTX alone: no cubin to read kernels from; the source's are bound
add_gpu_kernels(ptx_only SOURCES k.cu ARCHS 90-virtual)
# nothing named: the documented default
add_gpu_kernels(default SOURCES k.cu)
]=])
configure_and_build("${dir}" "${GENERATOR}")
set(b "${dir}/build")
expect_entries("CMAKE_CUDA_ARCHITECTURES 80" "${b}/cmake_plain/k.fatbin" sm_80 compute_80)
expect_entries("CMAKE_CUDA_ARCHITECTURES 80-real 90-virtual" "${b}/cmake_suffixes/k.fatbin"
               sm_80 compute_90)
expect_entries("CMAKE_CUDA_ARCHITECTURES all-major (as nvcc -arch=all-major)"
               "${b}/cmake_all_major/k.fatbin" ${all_major})
expect_entries("CMAKE_CUDA_ARCHITECTURES all (as nvcc -arch=all)" "${b}/cmake_all/k.fatbin"
               ${all})
expect_entries("CMAKE_CUDA_ARCHITECTURES OFF (as nvcc with no -arch)"
               "${b}/cmake_off/k.fatbin" ${nvcc_default})
expect_entries("CUDA_ARCHITECTURES 86-real set after the call" "${b}/property/k.fatbin" sm_86)
expect_entries("ARCHS 90 75" "${b}/archs/k.fatbin" sm_75 sm_90)
expect_entries("ARCHS 75 90 PTX" "${b}/archs_ptx/k.fatbin" sm_75 sm_90 compute_90)
expect_entries("ARCHS 80-real 90-virtual" "${b}/archs_suffixes/k.fatbin" sm_80 compute_90)
expect_entries("ARCHS all (nvcc --list-gpu-code)" "${b}/archs_all/k.fatbin" ${all_sass})
expect_entries("ARCHS 90-virtual" "${b}/ptx_only/k.fatbin" compute_90)
file(READ "${b}/ptx_only/k.cubind.h" ptx_only_header)
if(NOT ptx_only_header MATCHES "k_launch\\(")
  message(FATAL_ERROR "ARCHS 90-virtual: the source's kernel k is not bound")
endif()
expect_entries("the default" "${b}/default/k.fatbin" ${default})

# The CUDAARCHS environment variable, when nothing else names architectures.
set(dir "${WORK_DIR}/environment")
file(WRITE "${dir}/k.cu" "${kernel}")
file(WRITE "${dir}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.20)\nproject(env LANGUAGES C)\n"
     "find_package(cubind REQUIRED)\nadd_gpu_kernels(env SOURCES k.cu)\n")
set(ENVIRONMENT CUDAARCHS=87-real)
configure_and_build("${dir}" "${GENERATOR}")
unset(ENVIRONMENT)
expect_entries("CUDAARCHS=87-real" "${dir}/build/env/k.fatbin" sm_87)

# A project that enables CMake's CUDA language (and has a CUDA target of its own), with the
# Makefile generator: CMAKE_CUDA_ARCHITECTURES is then CMake's default, which the kernels follow.
set(dir "${WORK_DIR}/cuda_language")
file(WRITE "${dir}/k.cu" "${kernel}")
file(WRITE "${dir}/host.cu" "int host_side(void) { return 0; }\n")
file(WRITE "${dir}/CMakeLists.txt" [=[
cmake_minimum_required(VERSION 3.20)
project(cuda_language LANGUAGES C CUDA)
find_package(cubind REQUIRED)
add_gpu_kernels(kernels SOURCES k.cu)
add_library(host STATIC host.cu)
file(WRITE "${CMAKE_BINARY_DIR}/archs.txt" "${CMAKE_CUDA_ARCHITECTURES}")
]=])
get_filename_component(nvcc_real "${NVCC}" REALPATH)
configure_and_build("${dir}" "Unix Makefiles" "-DCMAKE_CUDA_COMPILER=${nvcc_real}")
file(READ "${dir}/build/archs.txt" cmake_default)
set(want "")
foreach(entry IN LISTS cmake_default)
  string(REGEX MATCH "^[0-9]+[a-z]?" number "${entry}")
  if(NOT entry MATCHES "-virtual$")
    list(APPEND want sm_${number})
  endif()
  if(NOT entry MATCHES "-real$")
    list(APPEND want compute_${number})
  endif()
endforeach()
expect_entries("CUDA language on, Unix Makefiles, CMake's default ${cmake_default}"
               "${dir}/build/kernels/k.fatbin" ${want})

# native: the GPUs of this machine; without one, a clear error at configure time.
set(dir "${WORK_DIR}/native")
file(WRITE "${dir}/k.cu" "${kernel}")
file(WRITE "${dir}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.20)\nproject(native LANGUAGES C)\n"
     "find_package(cubind REQUIRED)\nadd_gpu_kernels(native SOURCES k.cu ARCHS native)\n")
find_program(NVIDIA_SMI nvidia-smi)
set(gpus "")
if(NVIDIA_SMI)
  execute_process(COMMAND "${NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                  OUTPUT_VARIABLE gpus ERROR_QUIET)
  string(REGEX MATCHALL "[0-9]+\\.[0-9]+" gpus "${gpus}")
endif()
if(gpus)
  configure_and_build("${dir}" "${GENERATOR}")
  set(want "")
  foreach(capability IN LISTS gpus)
    string(REPLACE "." "" capability "${capability}")
    list(APPEND want sm_${capability})
  endforeach()
  list(REMOVE_DUPLICATES want)
  expect_entries("native" "${dir}/build/native/k.fatbin" ${want})
else()
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}"
                          "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
  string(REGEX REPLACE "[ \n]+" " " flat "${output}")
  if(rc EQUAL 0 OR NOT flat MATCHES "architecture 'native' needs a GPU when CMake configures")
    message(FATAL_ERROR "native without a GPU: expected a configure error, got (${rc}):\n${output}")
  endif()
  message(STATUS "native without a GPU: configure error, as expected")
endif()

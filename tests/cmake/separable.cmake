# Relocatable device code across .cu files, on the installed package: tests/gpu/separable's
# kernels call __device__ code of its other .cu file. As one SEPARABLE target, as a target
# given CMake's CUDA_SEPARABLE_COMPILATION property (after the call), and as targets whose nvcc
# options ask for relocatable code (COMPILE_OPTIONS -dc; CMAKE_CUDA_FLAGS "-rdc true" of a
# subdirectory: taken as SEPARABLE, where they built unlinked code whose kernels could not
# load), it builds: each .cu keeps its own stubs and module (<target>_<stem>), every kernel is
# bound (the implicitly instantiated templates too), and all modules load the one device-linked
# fatbin, embedded once.
# Without SEPARABLE the same sources cannot build (nvcc: the external device function is
# unresolved), which is what the option is for. The program runs without a GPU (exit 77).
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -DSOURCE_DIR=... -P separable.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR GENERATOR C_COMPILER SOURCE_DIR)
file(REMOVE_RECURSE "${WORK_DIR}")
set(dir "${WORK_DIR}/src")
set(fixture "${SOURCE_DIR}/tests/gpu/separable")
file(WRITE "${dir}/CMakeLists.txt" "
cmake_minimum_required(VERSION 3.20)
project(separable LANGUAGES C)
find_package(cubind 0.2 REQUIRED)
set(sources \"${fixture}/device_math.cu\" \"${fixture}/kernels.cu\")
add_gpu_kernels(option SOURCES \${sources} ARCHS 80 90 SEPARABLE)
add_gpu_kernels(property SOURCES \${sources} ARCHS 90)
set_target_properties(property PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
add_gpu_kernels(options_dc SOURCES \${sources} ARCHS 90 COMPILE_OPTIONS -dc)
# PTX asked for beside SEPARABLE: configured (the warning that the device link drops it), not built
add_gpu_kernels(with_ptx SOURCES \${sources} ARCHS 80 90 PTX SEPARABLE)
set_target_properties(with_ptx PROPERTIES EXCLUDE_FROM_ALL ON)
add_subdirectory(flags)
foreach(kernels IN ITEMS option property options_dc flags_rdc)
  add_executable(app_\${kernels} \"${fixture}/separable.c\")
  target_link_libraries(app_\${kernels} PRIVATE \${kernels})
  target_include_directories(app_\${kernels} PRIVATE \"${SOURCE_DIR}/tests/gpu\")
  target_compile_definitions(app_\${kernels} PRIVATE _POSIX_C_SOURCE=200809L)
  target_link_libraries(app_\${kernels} PRIVATE m)
endforeach()
if(NOT_SEPARABLE)
  add_gpu_kernels(not_separable SOURCES \${sources} ARCHS 90)
endif()
")
file(WRITE "${dir}/flags/CMakeLists.txt" "
set(CMAKE_CUDA_FLAGS \"-rdc true\")
add_gpu_kernels(flags_rdc SOURCES \${sources} ARCHS 90)
")
cubind_run(output "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -G "${GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}")
string(REGEX REPLACE "[ \n]+" " " flat "${output}")
cubind_expect("${flat}" "add_gpu_kernels\\(with_ptx\\): SEPARABLE: the device link keeps machine code only, so the PTX asked for \\(90\\) is dropped and the program runs on sm 80 90 alone"
              "SEPARABLE with PTX")
cubind_run(output "${CMAKE_COMMAND}" --build "${dir}/build")
cubind_expect("${output}" "nvcc -dlink option" "the device link step")

# (ZIP_LISTS takes the names of list variables: literal lists would give no iteration at all)
set(targets option property options_dc flags_rdc)
set(archs_of "sm_80 sm_90" sm_90 sm_90 sm_90)
set(out_dirs option property options_dc flags/flags_rdc)
foreach(target archs out IN ZIP_LISTS targets archs_of out_dirs)
  set(out "${dir}/build/${out}")
  file(READ "${out}/kernels.cubind.h" kernels_h)
  file(READ "${out}/device_math.cubind.h" math_h)
  foreach(kernel IN ITEMS apply_poly apply_poly_as_float apply_poly_as_double)
    cubind_expect("${kernels_h}" "cubind_status ${kernel}_launch\\(" "${target}: ${kernel} bound")
  endforeach()
  foreach(kernel IN ITEMS reset_calls read_calls)
    cubind_expect("${math_h}" "cubind_status ${kernel}_launch\\(" "${target}: ${kernel} bound")
  endforeach()
  # one embedded image, <target>.fatbin.c; both modules load it
  file(GLOB embedded RELATIVE "${out}" "${out}/*.fatbin.c")
  if(NOT embedded STREQUAL "${target}.fatbin.c")
    message(FATAL_ERROR "${target}: expected one embedded fatbin, ${target}.fatbin.c; got ${embedded}")
  endif()
  foreach(stem IN ITEMS kernels device_math)
    file(READ "${out}/${stem}.cubind.h" stubs)
    cubind_expect("${stubs}" "static const cubind_module cubind_g_${target}_${stem}_module = \\{\n *3, \"${target}_${stem}\", cubind_fatbin_${target}, "
                  "${target}: ${stem}.cu's module loads the one image")
  endforeach()
  string(REPLACE " " ";" archs "${archs}")
  cubind_fatbin_entries(entries "${out}/${target}.fatbin")
  if(NOT entries STREQUAL archs)
    message(FATAL_ERROR "${target}: the linked image holds ${entries}, expected ${archs}")
  endif()
  cubind_expect_no_gpu(gpu_separable "${dir}/build/app_${target}")
  message(STATUS "${target}: every kernel bound, one image (${entries})")
endforeach()

# The same sources without relocatable device code: nvcc cannot resolve poly().
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build" -DNOT_SEPARABLE=ON
                OUTPUT_QUIET ERROR_QUIET)
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${dir}/build" --target not_separable
                RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(rc EQUAL 0)
  message(FATAL_ERROR "without SEPARABLE the kernels calling another .cu's device code built")
endif()
message(STATUS "without SEPARABLE: fails as expected")

# What editors and build caches see: with CMAKE_EXPORT_COMPILE_COMMANDS each .cu is in
# compile_commands.json with the nvcc command add_gpu_kernels() runs (its -D options included),
# also after CMake regenerates the build; CMAKE_CUDA_COMPILER_LAUNCHER (ccache) wraps that nvcc.
# The launcher here logs its command line and runs it. The consumer project is a subdirectory
# (find_package(cubind) there, not at the top level, which builds a program linking its two
# kernel libraries): the top level's steps (the database, the program's C name check) work
# without the variables and imported targets of that directory.
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -P editors.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR GENERATOR C_COMPILER)
set(src "${WORK_DIR}/src")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(COPY "${CMAKE_CURRENT_LIST_DIR}/consumer/" DESTINATION "${src}/consumer")
file(WRITE "${src}/CMakeLists.txt" [[
cmake_minimum_required(VERSION 3.20)
project(editors LANGUAGES C)
add_subdirectory(consumer)
add_executable(both consumer/main.c)
target_link_libraries(both PRIVATE vec_kernels add_kernels)
]])
set(log "${WORK_DIR}/launcher.log")
file(WRITE "${WORK_DIR}/launcher.sh" "#!/bin/sh\necho \"$*\" >> '${log}'\nexec \"$@\"\n")
file(CHMOD "${WORK_DIR}/launcher.sh" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)

cubind_run(output "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G "${GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
           -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
           "-DCMAKE_CUDA_COMPILER_LAUNCHER=${WORK_DIR}/launcher.sh")
cubind_run(output "${CMAKE_COMMAND}" --build "${build}")
cubind_expect("${output}" "checking the C names linked into both" "the program's names check")

# The database: an entry for vec.cu whose command is nvcc's, with the -D that nvcc got.
function(check_database when)
  cubind_database_arguments(found "${build}" "/vec\\.cu$")
  file(READ "${build}/compile_commands.json" database)
  cubind_expect("${found}" "\"[^\"]*nvcc\",[ \n]*\"-fatbin\"" "${when}: the entry runs nvcc -fatbin")
  cubind_expect("${found}" "\"-DVEC_T=float\"" "${when}: the entry has the target's -D")
  cubind_expect("${found}" "\"[^\"]*/vec\\.cu\"[ \n]*\\]" "${when}: the entry compiles vec.cu")
  string(REGEX MATCHALL "/vec\\.cu\"" entries "${database}")
  list(LENGTH entries n)
  if(NOT n EQUAL 2) # its "file" and the last argument: one entry
    message(FATAL_ERROR "${when}: vec.cu should have exactly one entry:\n${database}")
  endif()
  message(STATUS "${when}: vec.cu is in compile_commands.json")
endfunction()
check_database("first build")

file(READ "${log}" launched)
cubind_expect("${launched}" "nvcc -fatbin [^\n]*vec\\.cu" "the launcher runs nvcc")
message(STATUS "CMAKE_CUDA_COMPILER_LAUNCHER ran: ${launched}")

cubind_run(output "${CMAKE_COMMAND}" --build "${build}")
if(output MATCHES "cubind: |Building |Linking ")
  message(FATAL_ERROR "${GENERATOR}: the second build did work:\n${output}")
endif()
# CMake regenerates the build (and rewrites compile_commands.json): the entry comes back.
file(TOUCH "${src}/CMakeLists.txt")
cubind_run(output "${CMAKE_COMMAND}" --build "${build}")
check_database("after CMake regenerated the build")

# What editors and build caches see: with CMAKE_EXPORT_COMPILE_COMMANDS each .cu is in
# compile_commands.json with the nvcc command add_gpu_kernels() runs (its -D options included),
# also after CMake regenerates the build; CMAKE_CUDA_COMPILER_LAUNCHER (ccache) wraps that nvcc.
# The launcher here logs its command line and runs it.
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -P editors.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR GENERATOR C_COMPILER)
set(src "${WORK_DIR}/src")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(COPY "${CMAKE_CURRENT_LIST_DIR}/consumer/" DESTINATION "${src}")
set(log "${WORK_DIR}/launcher.log")
file(WRITE "${WORK_DIR}/launcher.sh" "#!/bin/sh\necho \"$*\" >> '${log}'\nexec \"$@\"\n")
file(CHMOD "${WORK_DIR}/launcher.sh" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)

cubind_run(output "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G "${GENERATOR}"
           "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
           -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
           "-DCMAKE_CUDA_COMPILER_LAUNCHER=${WORK_DIR}/launcher.sh")
cubind_run(output "${CMAKE_COMMAND}" --build "${build}")

# The database: an entry for vec.cu whose command is nvcc's, with the -D that nvcc got.
function(check_database when)
  file(READ "${build}/compile_commands.json" database)
  string(JSON count LENGTH "${database}")
  math(EXPR last "${count} - 1")
  set(found "")
  foreach(i RANGE ${last})
    string(JSON file GET "${database}" ${i} file)
    if(file MATCHES "/vec\\.cu$")
      string(JSON arguments GET "${database}" ${i} arguments)
      set(found "${arguments}")
    endif()
  endforeach()
  if(NOT found)
    message(FATAL_ERROR "${when}: no entry for vec.cu in compile_commands.json:\n${database}")
  endif()
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

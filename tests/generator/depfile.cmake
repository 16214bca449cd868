# depfile.cmake: --depfile lists the .cu and the user headers it includes, not system headers,
# and the one that only the check whether C can include local.h reads (by its real path).
#
#   cmake -DGEN=cubind-gen -DFIXTURE=uses_header.cu -DOUT_DIR=dir -P depfile.cmake
cmake_minimum_required(VERSION 3.20)

file(REMOVE_RECURSE "${OUT_DIR}")
execute_process(COMMAND "${GEN}" --depfile "${OUT_DIR}/x.d" -o "${OUT_DIR}" "${FIXTURE}"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cubind-gen failed:\n${err}")
endif()
file(READ "${OUT_DIR}/x.d" depfile)
get_filename_component(dir "${FIXTURE}" DIRECTORY)
file(REAL_PATH "${dir}" real_dir)
set(want "^${OUT_DIR}/uses_header.cubind.h ${OUT_DIR}/uses_header.cubind.c: \\\\\n  ${FIXTURE} \\\\\n  ${dir}/local.h \\\\\n  ${real_dir}/c_side.h\n$")
if(NOT depfile MATCHES "${want}")
  message(FATAL_ERROR "unexpected depfile (want ${want}):\n${depfile}")
endif()

# symbols.cmake: every cubin symbol the generated .c names must exist in the cubin that nvcc
# builds from the same .cu.
#
#   cmake -DNVCC=nvcc -DREADELF=readelf -DFIXTURE=x.cu -DGENERATED=x.cubind.h
#         -DINCLUDE_DIR=runtime/include -DOUT_DIR=dir -P symbols.cmake
cmake_minimum_required(VERSION 3.20)

get_filename_component(stem "${FIXTURE}" NAME_WE)
file(MAKE_DIRECTORY "${OUT_DIR}")
set(cubin "${OUT_DIR}/${stem}.cubin")
execute_process(COMMAND "${NVCC}" -cubin -arch=sm_90 -I "${INCLUDE_DIR}" -o "${cubin}" "${FIXTURE}"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed on ${FIXTURE}:\n${err}")
endif()
execute_process(COMMAND "${READELF}" -sW "${cubin}" OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf failed on ${cubin}")
endif()
# symbol names: the last column of each row
string(REGEX MATCHALL "[^ \n]+\n" names "${table}")
string(REPLACE "\n" "" names "${names}")

file(READ "${GENERATED}" source)
# kernel table rows: {"c_name", "symbol", params, count},
string(REGEX MATCHALL "\n    {\"[A-Za-z0-9_]+\", \"[A-Za-z0-9_]+\", " rows "${source}")
set(checked 0)
foreach(row IN LISTS rows)
  string(REGEX REPLACE ".*\", \"([A-Za-z0-9_]+)\", $" "\\1" symbol "${row}")
  list(FIND names "${symbol}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "symbol ${symbol} (${GENERATED}) is not in ${cubin}:\n${table}")
  endif()
  math(EXPR checked "${checked} + 1")
endforeach()
message(STATUS "${checked} symbols found in ${cubin}")

# fail.cmake: runs cubind-gen where it must fail, and checks the failure.
#
#   cmake -DGEN=cubind-gen "-DARGS=arg^^arg" -DOUT_DIR=dir -DSTEM=name -DEXPECT_RC=1
#         "-DEXPECT=regex" -P fail.cmake
#
# Before the run, OUT_DIR holds STEM.cubind.h and STEM.cubind.c from a "previous run"; after it
# they must be byte-for-byte and timestamp-for-timestamp the same, and no file may be added.
# EXPECT must match stderr. ARGS are separated by "^^" (a ';' would not survive add_test);
# "@OUT_DIR@" in them stands for OUT_DIR.
# Optional:
#   -DPREPARE_DIR=name    creates the directory OUT_DIR/name first (an output path that is taken)
#   -DHUGE_INPUT=path     writes a ~50 MB .cu there first: 500,000 comment lines of 100 bytes,
#                         then a line with a syntax error (line 500001)
#   -DCOPY_FROM=a -DCOPY_TO=b  copies the text file a to b first
#   -DMAX_SECONDS=n       cubind-gen must answer within n seconds
#   -DMAKE_FATBIN=path -DNVCC=nvcc -DFATBIN_SOURCE=x.cu "-DFATBIN_OPTIONS=opt^^opt"
#         [-DTRUNCATE_TO=bytes]   builds a fatbin with nvcc first (and cuts it short)
cmake_minimum_required(VERSION 3.20)

file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
if(COPY_FROM AND COPY_TO) # an input whose name git should not hold
  file(READ "${COPY_FROM}" content)
  file(WRITE "${COPY_TO}" "${content}")
endif()
if(MAKE_FATBIN)
  string(REPLACE "^^" ";" options "${FATBIN_OPTIONS}")
  execute_process(COMMAND "${NVCC}" -fatbin ${options} -o "${MAKE_FATBIN}" "${FATBIN_SOURCE}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nvcc could not build the test's fatbin:\n${err}")
  endif()
  if(TRUNCATE_TO)
    execute_process(COMMAND truncate -s "${TRUNCATE_TO}" "${MAKE_FATBIN}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "could not truncate ${MAKE_FATBIN}")
    endif()
  endif()
endif()
if(PREPARE_DIR)
  file(MAKE_DIRECTORY "${OUT_DIR}/${PREPARE_DIR}")
endif()
if(HUGE_INPUT)
  string(REPEAT "x" 96 line)
  string(REPEAT "// ${line}\n" 1000 chunk)
  file(WRITE "${HUGE_INPUT}" "")
  foreach(i RANGE 1 500)
    file(APPEND "${HUGE_INPUT}" "${chunk}")
  endforeach()
  file(APPEND "${HUGE_INPUT}" "extern \"C\" __global__ void k(int n {}\n")
endif()
set(previous "${OUT_DIR}/${STEM}.cubind.h" "${OUT_DIR}/${STEM}.cubind.c")
foreach(file IN LISTS previous)
  file(WRITE "${file}" "/* previous output */\n")
endforeach()
execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 0.05)
execute_process(COMMAND stat -c "%n %s %y" ${previous} OUTPUT_VARIABLE before)
file(GLOB_RECURSE files_before LIST_DIRECTORIES true "${OUT_DIR}/*")

string(REPLACE "@OUT_DIR@" "${OUT_DIR}" args "${ARGS}")
string(REPLACE "^^" ";" args "${args}")
string(TIMESTAMP start "%s")
execute_process(COMMAND "${GEN}" ${args} RESULT_VARIABLE rc ERROR_VARIABLE stderr
                OUTPUT_VARIABLE stdout)
string(TIMESTAMP end "%s")
math(EXPR seconds "${end} - ${start}")
if(MAX_SECONDS AND seconds GREATER MAX_SECONDS)
  message(FATAL_ERROR "cubind-gen took ${seconds} s, more than ${MAX_SECONDS} s")
endif()
if(HUGE_INPUT)
  file(REMOVE "${HUGE_INPUT}")
endif()

if(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "exit status ${rc}, expected ${EXPECT_RC}; stderr:\n${stderr}")
endif()
if(NOT stderr MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${stderr}")
endif()
execute_process(COMMAND stat -c "%n %s %y" ${previous} OUTPUT_VARIABLE after)
file(GLOB_RECURSE files_after LIST_DIRECTORIES true "${OUT_DIR}/*")
if(NOT before STREQUAL after)
  message(FATAL_ERROR "outputs changed by a failed run:\n${before}${after}")
endif()
if(NOT files_before STREQUAL files_after)
  message(FATAL_ERROR "a failed run created files: ${files_after}")
endif()
foreach(file IN LISTS previous)
  file(READ "${file}" content)
  if(NOT content STREQUAL "/* previous output */\n")
    message(FATAL_ERROR "${file} was modified")
  endif()
endforeach()
message(STATUS "failed as expected:\n${stderr}")

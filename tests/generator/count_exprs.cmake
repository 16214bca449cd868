# count_exprs.cmake: runs tests/generator/count_exprs.c's program, then compiles what it wrote:
# every accepted count expression as C (originals.c: it must be C) and every translation with
# the strictest flags (translated.c), and runs the table of exact values.
#   cmake -DPROGRAM=count_exprs -DOUT_DIR=dir -DCC=cc -DCXX=c++ -DINCLUDE_DIR=runtime/include
#         -DCUDA_INCLUDE=dir -P count_exprs.cmake
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
execute_process(COMMAND "${PROGRAM}" "${OUT_DIR}" 4000 RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "count_exprs failed (${rc}):\n${out}${err}")
endif()
message(STATUS "${out}")
# the .cu is C++ (digit separators, bool): the original text must be a C++ expression
execute_process(COMMAND "${CXX}" -x c++ -std=c++17 -w -c "${OUT_DIR}/originals.c"
                        -o "${OUT_DIR}/originals.o"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "an accepted count expression is not C:\n${err}")
endif()
execute_process(COMMAND "${CC}" -std=c99 -Wall -Wextra -Werror -pedantic -I "${INCLUDE_DIR}"
                        -isystem "${CUDA_INCLUDE}" -Wno-unused-function
                        "${OUT_DIR}/translated.c" -o "${OUT_DIR}/translated"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a translation does not compile:\n${err}")
endif()
execute_process(COMMAND "${OUT_DIR}/translated" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "wrong counts:\n${out}")
endif()
message(STATUS "${out}")

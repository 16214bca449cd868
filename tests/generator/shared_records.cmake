# shared_records.cmake: C copies of one record in the headers of two .cu files (a .cuh both
# include) are one definition to a C file that includes both headers; a different record of the
# same name is an #error naming it, not a silently different layout; C++ code that includes the
# record's own header defines CUBIND_RECORD_<name> to 1 and gets no copy.
#
#   cmake -DGEN=cubind-gen -DFIXTURES=dir -DOUT_DIR=dir -DINCLUDE_DIR=runtime/include -DCC=cc
#         -DCXX=c++ -P shared_records.cmake
cmake_minimum_required(VERSION 3.20)

file(REMOVE_RECURSE "${OUT_DIR}")
foreach(stem first second other)
  execute_process(COMMAND "${GEN}" -I "${INCLUDE_DIR}" --no-cache -o "${OUT_DIR}"
                          "${FIXTURES}/${stem}.cu"
                  RESULT_VARIABLE rc ERROR_VARIABLE stderr)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cubind-gen ${stem}.cu failed:\n${stderr}")
  endif()
endforeach()

# compile_main(NAME HEADER...): a C file of NAME that includes the headers and calls nothing
function(compile_main name)
  set(text "")
  foreach(header IN LISTS ARGN)
    string(APPEND text "#include \"${header}\"\n")
  endforeach()
  string(APPEND text "int main(void) { params p; p.scale = 2; return (int)p.scale - 2; }\n")
  file(WRITE "${OUT_DIR}/${name}.c" "${text}")
  execute_process(COMMAND "${CC}" -std=c99 -Wall -Wextra -Werror -pedantic -I "${INCLUDE_DIR}"
                          -I "${OUT_DIR}" -c -o "${OUT_DIR}/${name}.o" "${OUT_DIR}/${name}.c"
                  RESULT_VARIABLE rc ERROR_VARIABLE stderr OUTPUT_VARIABLE stdout)
  set(rc ${rc} PARENT_SCOPE)
  set(output "${stdout}${stderr}" PARENT_SCOPE)
endfunction()

compile_main(both first.cubind.h second.cubind.h)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a C file that includes both headers does not compile:\n${output}")
endif()
compile_main(clash first.cubind.h other.cubind.h)
if(rc EQUAL 0 OR NOT output MATCHES "params: another header declares another C copy")
  message(FATAL_ERROR "two different records named params compiled, or without the #error:\n"
                      "${output}")
endif()

file(WRITE "${OUT_DIR}/own.cpp" "#include \"${FIXTURES}/params.cuh\"
#define CUBIND_RECORD_params 1
#include \"first.cubind.h\"
#include \"second.cubind.h\"
int main() { params p = {2.0f, 3}; return p.count - 3; }
")
execute_process(COMMAND "${CXX}" -std=c++11 -Wall -Wextra -Werror -pedantic -I "${INCLUDE_DIR}"
                        -I "${OUT_DIR}" -c -o "${OUT_DIR}/own.o" "${OUT_DIR}/own.cpp"
                RESULT_VARIABLE rc ERROR_VARIABLE output OUTPUT_VARIABLE stdout)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "C++ with the record's own header and CUBIND_RECORD_params 1 does not "
                      "compile:\n${stdout}${output}")
endif()

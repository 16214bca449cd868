# embed.cmake: `cubind-gen --embed-fatbin` round trip. Embeds nvcc's FATBIN and CUBIN, compiles
# each with a program that writes the array back out, and compares bytes; also checks the
# 16-byte alignment, that a shared library does not export the image, and that a rerun leaves
# the unchanged output alone. Then what is refused,
# before anything is read or written: an empty file, a host ELF file, a truncated fatbin, a
# device (/dev/zero would be read until memory runs out), a FIFO (would block forever).
#
#   cmake -DGEN=cubind-gen -DFATBIN=x.fatbin -DCUBIN=x.cubin -DCC=cc -DOUT_DIR=dir -P embed.cmake
cmake_minimum_required(VERSION 3.20)

file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")

foreach(case fatbin cubin)
  if(case STREQUAL "fatbin")
    set(input "${FATBIN}")
  else()
    set(input "${CUBIN}")
  endif()
  execute_process(COMMAND "${GEN}" --embed-fatbin "${input}" --module-name ${case} -o "${OUT_DIR}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cubind-gen --embed-fatbin failed:\n${err}")
  endif()
  file(WRITE "${OUT_DIR}/${case}_main.c" "
#include <stddef.h>
#include <stdio.h>
extern const unsigned char cubind_fatbin_${case}[];
extern const size_t cubind_fatbin_${case}_size;
int main(int argc, char **argv) {
  FILE *out = fopen(argv[argc - 1], \"wb\");
  if (!out || ((size_t)cubind_fatbin_${case} % 16) != 0)
    return 2;
  if (fwrite(cubind_fatbin_${case}, 1, cubind_fatbin_${case}_size, out) != cubind_fatbin_${case}_size)
    return 3;
  return fclose(out) != 0;
}
")
  execute_process(
    COMMAND "${CC}" -std=c99 -Wall -Wextra -Werror -pedantic -o "${OUT_DIR}/${case}_prog"
            "${OUT_DIR}/${case}_main.c" "${OUT_DIR}/${case}.fatbin.c"
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "compiling ${case}.fatbin.c failed:\n${err}")
  endif()
  execute_process(COMMAND "${OUT_DIR}/${case}_prog" "${OUT_DIR}/${case}.out" RESULT_VARIABLE rc)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${input}" "${OUT_DIR}/${case}.out"
                  RESULT_VARIABLE differs)
  if(NOT rc EQUAL 0 OR differs)
    message(FATAL_ERROR "${case}: round trip failed (program status ${rc})")
  endif()
  # a shared library keeps its image to itself: another library's of the same name is never
  # bound in its place (the dynamic symbol table does not hold it); compiled as C and as C++
  foreach(language c c++)
    execute_process(
      COMMAND "${CC}" -x ${language} -Wall -Wextra -Werror -pedantic -shared -fPIC
              -o "${OUT_DIR}/lib${case}.so" "${OUT_DIR}/${case}.fatbin.c"
      RESULT_VARIABLE rc ERROR_VARIABLE err)
    execute_process(COMMAND nm -D --defined-only "${OUT_DIR}/lib${case}.so"
                    RESULT_VARIABLE nm_rc OUTPUT_VARIABLE exported ERROR_VARIABLE err2)
    if(NOT rc EQUAL 0 OR NOT nm_rc EQUAL 0 OR exported MATCHES "cubind_fatbin_")
      message(FATAL_ERROR "${case}: the shared library (${language}) exports its image, or did "
                          "not build:\n${err}${err2}${exported}")
    endif()
  endforeach()
  execute_process(COMMAND stat -c %y "${OUT_DIR}/${case}.fatbin.c" OUTPUT_VARIABLE before)
  execute_process(COMMAND "${GEN}" --embed-fatbin "${input}" --module-name ${case} -o "${OUT_DIR}")
  execute_process(COMMAND stat -c %y "${OUT_DIR}/${case}.fatbin.c" OUTPUT_VARIABLE after)
  if(NOT before STREQUAL after)
    message(FATAL_ERROR "${case}: unchanged output was rewritten")
  endif()
endforeach()

file(WRITE "${OUT_DIR}/empty.bin" "")
file(READ "${FATBIN}" head LIMIT 40 HEX) # a fatbin cut inside its first entry header
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${head}")
execute_process(COMMAND printf "${escaped}" OUTPUT_FILE "${OUT_DIR}/truncated.fatbin")
execute_process(COMMAND mkfifo "${OUT_DIR}/fifo.fatbin" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mkfifo failed")
endif()
foreach(bad IN ITEMS "empty.bin=neither a fatbin nor a cubin" "fifo.fatbin=not a regular file"
                     "truncated.fatbin=truncated or malformed fatbin"
                     "${GEN}=no 64-bit CUDA cubin" "/dev/zero=not a regular file")
  string(REGEX MATCH "^([^=]+)=(.*)$" matched "${bad}")
  set(input "${CMAKE_MATCH_1}")
  set(want "${CMAKE_MATCH_2}")
  if(NOT IS_ABSOLUTE "${input}")
    set(input "${OUT_DIR}/${input}")
  endif()
  execute_process(COMMAND "${GEN}" --embed-fatbin "${input}" --module-name refused -o "${OUT_DIR}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "${want}" OR EXISTS "${OUT_DIR}/refused.fatbin.c")
    message(FATAL_ERROR "--embed-fatbin ${input}: expected exit 1, '${want}' and no output; "
                        "got ${rc}:\n${err}")
  endif()
  message(STATUS "refused ${input}: ${err}")
endforeach()

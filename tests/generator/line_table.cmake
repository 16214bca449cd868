# line_table.cmake: the generated code steps right in a debugger.
#
#   cmake -DGEN=cubind-gen -DFIXTURE=x.cu -DOUT_DIR=dir -DINCLUDE_DIR=runtime/include
#         -DCUDA_INCLUDE=dir -DCC=cc -DREADELF=readelf -P line_table.cmake
#
# 1. Every #line directive in the outputs tells the truth: one naming the output itself gives
#    the next line's own number; one naming the .cu is followed by text from that line of the
#    .cu (a doc comment's line, with its indentation normalised; or a struct member declared on
#    that line).
# 2. The .c, compiled with -g, has a line table in which no host instruction maps to the .cu
#    (the stubs are the generator's code, not the kernel's) and none to a line past the end of
#    the file it names.
cmake_minimum_required(VERSION 3.20)

get_filename_component(stem "${FIXTURE}" NAME_WE)
get_filename_component(cu_name "${FIXTURE}" NAME)
file(REMOVE_RECURSE "${OUT_DIR}")
execute_process(COMMAND "${GEN}" -I "${INCLUDE_DIR}" --no-cache -o "${OUT_DIR}" "${FIXTURE}"
                RESULT_VARIABLE rc ERROR_VARIABLE stderr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cubind-gen failed on ${FIXTURE}:\n${stderr}")
endif()
file(STRINGS "${FIXTURE}" cu_lines)
list(LENGTH cu_lines cu_count)

# Reads a file into a list of lines, empty lines kept (file(STRINGS) drops them).
function(read_lines path out)
  file(READ "${path}" text)
  string(REPLACE "\\" "|" text "${text}") # a backslash before a newline would escape the ';'
  string(REPLACE ";" "\\;" text "${text}")
  string(REPLACE "\n" ";" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
read_lines("${FIXTURE}" cu_all)

set(directives 0)
foreach(suffix cubind.h cubind.c)
  set(output "${OUT_DIR}/${stem}.${suffix}")
  read_lines("${output}" lines)
  list(LENGTH lines count)
  set(physical 0)
  set(pending "") # the .cu line the next output line stands for
  foreach(line IN LISTS lines)
    math(EXPR physical "${physical} + 1")
    if(line MATCHES "^#line ([0-9]+) \"([^\"]+)\"$")
      set(number "${CMAKE_MATCH_1}")
      set(file "${CMAKE_MATCH_2}")
      math(EXPR directives "${directives} + 1")
      if(file STREQUAL "${stem}.${suffix}")
        math(EXPR next "${physical} + 1")
        if(NOT number EQUAL next)
          message(FATAL_ERROR "${output}:${physical}: #line ${number} back to itself, but the next line is ${next}")
        endif()
        set(pending "")
      elseif(file STREQUAL "${cu_name}")
        if(number GREATER cu_count)
          message(FATAL_ERROR "${output}:${physical}: #line ${number} is past the end of ${cu_name} (${cu_count} lines)")
        endif()
        set(pending "${number}")
      else()
        message(FATAL_ERROR "${output}:${physical}: #line names '${file}', neither the output nor the .cu")
      endif()
      continue()
    endif()
    if(pending)
      math(EXPR index "${pending} - 1")
      list(GET cu_all ${index} source)
      string(STRIP "${line}" generated)
      string(STRIP "${source}" source)
      # the same text (a doc comment line), or a member declaration naming a member declared on
      # that line of the .cu (the C copy spells its type for C)
      set(true_line 0)
      # a doc comment's line: the same text once comment markers, which the header may respell
      # (/// as a block comment, a "/" "*" broken up), and spaces are left out
      string(REGEX REPLACE "[/* \t]" "" generated_text "${generated}")
      string(REGEX REPLACE "[/* \t]" "" source_text "${source}")
      if(generated_text STREQUAL source_text)
        set(true_line 1)
      elseif(generated MATCHES "^[A-Za-z_].*[ *]([A-Za-z_][A-Za-z0-9_]*)(\\[[0-9]+\\])*;$")
        set(member "${CMAKE_MATCH_1}")
        if(source MATCHES "(^|[^A-Za-z0-9_])${member}([^A-Za-z0-9_]|$)")
          set(true_line 1)
        endif()
      endif()
      if(NOT true_line)
        message(FATAL_ERROR "${output}:${physical}: '${generated}' stands for ${cu_name}:${pending}, which is '${source}'")
      endif()
      math(EXPR pending "${pending} + 1")
    endif()
  endforeach()
endforeach()

execute_process(COMMAND "${CC}" -std=c99 -g -O0 -I "${OUT_DIR}" -I "${INCLUDE_DIR}" -isystem "${CUDA_INCLUDE}"
                        -c "${OUT_DIR}/${stem}.cubind.c" -o "${OUT_DIR}/${stem}.o"
                RESULT_VARIABLE rc ERROR_VARIABLE stderr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compiling ${stem}.cubind.c failed:\n${stderr}")
endif()
execute_process(COMMAND "${READELF}" --debug-dump=decodedline "${OUT_DIR}/${stem}.o"
                OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readelf failed")
endif()
# the definitions the .c compiles are at the end of the header
read_lines("${OUT_DIR}/${stem}.cubind.h" h_lines)
list(LENGTH h_lines h_count)
string(REPLACE "\n" ";" rows "${table}")
set(mapped 0)
foreach(row IN LISTS rows)
  if(NOT row MATCHES "^([^ ]+) +([0-9]+) +0x[0-9a-f]+")
    continue()
  endif()
  set(file "${CMAKE_MATCH_1}")
  set(number "${CMAKE_MATCH_2}")
  math(EXPR mapped "${mapped} + 1")
  if(file MATCHES "\\.cu$")
    message(FATAL_ERROR "a host instruction of ${stem}.cubind.c maps to ${file}:${number}:\n${row}")
  endif()
  if(file STREQUAL "${stem}.cubind.h" AND number GREATER h_count)
    message(FATAL_ERROR "a host instruction maps to ${file}:${number}, past its end (${h_count} lines)")
  endif()
endforeach()
if(mapped EQUAL 0)
  message(FATAL_ERROR "no line table rows found in readelf's output:\n${table}")
endif()
message(STATUS "${stem}: ${directives} #line directives true, ${mapped} line table rows in ${stem}.cubind.c")

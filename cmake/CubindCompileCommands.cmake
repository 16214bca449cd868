# CubindCompileCommands.cmake: adds the nvcc steps of add_gpu_kernels() to CMake's
# compile_commands.json, so that editors and tools (clangd, clang-tidy) know how each .cu is
# compiled. A build step runs it (see _cubind_compile_commands in CubindGpuKernels.cmake):
#   cmake -DDATABASE=<build>/compile_commands.json -DFRAGMENTS=<f1;f2;...> -DSTAMP=<file> -P ...
# Each fragment holds cubind_compile_command(<directory> <file> <output> <argument>...) calls.
# CMake rewrites the database whenever it regenerates the build; the entries added last time
# are remembered in <STAMP>.entries, removed, and added again, so reruns change nothing.
cmake_minimum_required(VERSION 3.20)
foreach(var IN ITEMS DATABASE FRAGMENTS STAMP)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "pass -D${var}=...")
  endif()
endforeach()

# JSON string literal for `text`.
function(json_string text out)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  string(REPLACE "\t" "\\t" text "${text}")
  string(REPLACE "\r" "\\r" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

set(entries "")
# cubind_compile_command(directory file output argument...): one database entry. Arguments
# holding several (a generator expression's list) are split; empty ones (a configuration's
# flags in another configuration) dropped.
function(cubind_compile_command directory file output)
  json_string("${directory}" directory)
  json_string("${file}" file)
  json_string("${output}" output)
  set(arguments "")
  foreach(argument IN LISTS ARGN)
    if(NOT argument STREQUAL "")
      json_string("${argument}" argument)
      list(APPEND arguments "${argument}")
    endif()
  endforeach()
  list(JOIN arguments ", " arguments)
  string(APPEND entries ",\n{\n  \"directory\": ${directory},\n  \"arguments\": [${arguments}],\n"
                        "  \"file\": ${file},\n  \"output\": ${output}\n}")
  set(entries "${entries}" PARENT_SCOPE)
endfunction()
foreach(fragment IN LISTS FRAGMENTS)
  include("${fragment}")
endforeach()

set(text "[\n]")
if(EXISTS "${DATABASE}")
  file(READ "${DATABASE}" text)
endif()
string(REGEX REPLACE "[ \t\r\n]+$" "" text "${text}")
set(previous "")
if(EXISTS "${STAMP}.entries")
  file(READ "${STAMP}.entries" previous)
endif()
# The entries of the last run, still there when CMake has not rewritten the database since.
string(LENGTH "${text}" text_length)
string(LENGTH "${previous}]" previous_length)
if(previous AND text_length GREATER_EQUAL previous_length)
  math(EXPR at "${text_length} - ${previous_length}")
  string(SUBSTRING "${text}" ${at} -1 tail)
  if(tail STREQUAL "${previous}]")
    string(SUBSTRING "${text}" 0 ${at} text)
    string(APPEND text "]")
  endif()
endif()
if(NOT text MATCHES "\\]$")
  message(FATAL_ERROR "${DATABASE} does not end with ']': not a compile database")
endif()
string(REGEX REPLACE "[ \t\r\n]*\\]$" "" body "${text}")
if(body MATCHES "\\[$") # an empty database: no comma before the first entry
  string(REGEX REPLACE "^,\n" "\n" entries "${entries}")
endif()
set(merged "${body}${entries}\n]\n")
set(current "")
if(EXISTS "${DATABASE}")
  file(READ "${DATABASE}" current)
endif()
if(NOT current STREQUAL merged)
  file(WRITE "${DATABASE}" "${merged}")
endif()
file(WRITE "${STAMP}.entries" "${entries}\n")
file(TOUCH "${STAMP}")

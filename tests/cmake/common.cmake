# common.cmake: helpers for the cmake -P test scripts in this folder.
cmake_minimum_required(VERSION 3.20) # (the policies of the functions below)

# cubind_run(<output-var> <command>...): runs the command, fails the test (printing its output)
# unless it exits 0, and leaves its stdout + stderr in <output-var>.
function(cubind_run out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " shown "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${shown}\n${output}")
  endif()
  set(${out} "${output}" PARENT_SCOPE)
endfunction()

# cubind_require(<var>...): fails unless each variable was passed with -D<var>=...
function(cubind_require)
  foreach(var IN LISTS ARGN)
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "pass -D${var}=...")
    endif()
  endforeach()
endfunction()

# cubind_require_tool(<var> <what> <Debian package>): fails unless the tool's path was found.
function(cubind_require_tool var what package)
  if(NOT ${var} OR ${var} MATCHES "-NOTFOUND$")
    message(FATAL_ERROR "this test needs ${what}, which is not installed: apt-get install "
                        "${package} (scripts/test.sh installs it), then configure again")
  endif()
endfunction()

# cubind_expect_no_gpu(<name> <executable>...): runs the program with a driver library that does
# not exist (so a GPU machine behaves like one without) and checks that it exits 77 saying
# "<name>: skipped: no GPU: ...". <executable>... may start with NAME=VALUE environment settings.
function(cubind_expect_no_gpu name)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env CUBIND_DRIVER_LIBRARY=/nonexistent/libcuda.so.1
                          ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT rc EQUAL 77 OR NOT output MATCHES "${name}: skipped: no GPU: [^\n]")
    message(FATAL_ERROR "${name}: expected exit code 77 and a line '${name}: skipped: no GPU: <why>', "
                        "got exit code ${rc} and:\n${output}")
  endif()
  message(STATUS "${name} without a GPU: ${output}")
endfunction()

# cubind_build_consumer(<build dir> <generator> <cmake -D argument>...): configures
# tests/cmake/consumer with the arguments (how it finds cubind), builds it, and runs its two
# programs without a GPU (exit 77 expected).
function(cubind_build_consumer build generator)
  cubind_run(output "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/consumer"
             -B "${build}" -G "${generator}" ${ARGN})
  cubind_run(output "${CMAKE_COMMAND}" --build "${build}")
  cubind_expect_no_gpu(consumer "${build}/app")
  cubind_expect_no_gpu(array_app "${build}/array_app")
endfunction()

# _cubind_hex_le(<out> <hex> <offset> <bytes>): the little-endian number of <bytes> bytes at byte
# <offset> of a file read with file(READ ... HEX).
function(_cubind_hex_le out hex offset bytes)
  math(EXPR at "(${offset}) * 2")
  set(value "")
  foreach(i RANGE 1 ${bytes})
    string(SUBSTRING "${hex}" ${at} 2 byte)
    string(PREPEND value "${byte}")
    math(EXPR at "${at} + 2")
  endforeach()
  math(EXPR value "0x${value}")
  set(${out} ${value} PARENT_SCOPE)
endfunction()

# cubind_fatbin_entries(<out> <fatbin> [FLAGS <flags-out>]): what a fatbin nvcc wrote holds, as
# a sorted list of sm_XX (a cubin) and compute_XX (PTX) entries; FLAGS also gives each entry's
# header flags ("sm_90=0x8011"), which say whether it is compressed (0x2000 LZ4, 0x8000 zstd).
function(cubind_fatbin_entries out fatbin)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "FLAGS" "")
  file(READ "${fatbin}" hex HEX)
  string(LENGTH "${hex}" length)
  math(EXPR size "${length} / 2")
  set(entries "")
  set(flags "")
  set(container 0)
  while(container LESS size)
    _cubind_hex_le(magic "${hex}" ${container} 4)
    if(NOT magic EQUAL 3126193488) # 0xBA55ED50
      message(FATAL_ERROR "${fatbin}: no fatbin container at byte ${container}")
    endif()
    _cubind_hex_le(header "${hex}" "${container} + 6" 2)
    _cubind_hex_le(body "${hex}" "${container} + 8" 8)
    math(EXPR entry "${container} + ${header}")
    math(EXPR end "${entry} + ${body}")
    while(entry LESS end)
      _cubind_hex_le(kind "${hex}" ${entry} 2)
      _cubind_hex_le(entry_header "${hex}" "${entry} + 4" 4)
      _cubind_hex_le(payload "${hex}" "${entry} + 8" 8)
      _cubind_hex_le(arch "${hex}" "${entry} + 28" 4)
      _cubind_hex_le(entry_flags "${hex}" "${entry} + 40" 4)
      if(kind EQUAL 2)
        set(name sm_${arch})
      else()
        set(name compute_${arch})
      endif()
      list(APPEND entries ${name})
      math(EXPR entry_flags "${entry_flags}" OUTPUT_FORMAT HEXADECIMAL)
      list(APPEND flags "${name}=${entry_flags}")
      math(EXPR entry "${entry} + ${entry_header} + ${payload}")
    endwhile()
    set(container ${end})
  endwhile()
  list(SORT entries COMPARE NATURAL)
  set(${out} "${entries}" PARENT_SCOPE)
  if(arg_FLAGS)
    set(${arg_FLAGS} "${flags}" PARENT_SCOPE)
  endif()
endfunction()

# cubind_readme_block(<out> <markdown file> <regex>): the text of the first fenced code block
# whose first line matches <regex> (the block as a reader copies it). Searched with string(FIND)
# rather than as a list of lines: brackets and semicolons in code would split CMake lists.
function(cubind_readme_block out file regex)
  file(READ "${file}" text)
  while(TRUE)
    string(FIND "${text}" "```" open)
    if(open EQUAL -1)
      message(FATAL_ERROR "${file}: no code block whose first line matches '${regex}'")
    endif()
    string(SUBSTRING "${text}" ${open} -1 text)
    string(FIND "${text}" "\n" eol)              # the rest of the ``` line: the language
    math(EXPR eol "${eol} + 1")
    string(SUBSTRING "${text}" ${eol} -1 text)
    string(FIND "${text}" "\n```" close)
    string(SUBSTRING "${text}" 0 ${close} block)
    math(EXPR close "${close} + 4")
    string(SUBSTRING "${text}" ${close} -1 text)
    string(FIND "${text}" "\n" eol)               # past the closing ``` line
    if(eol EQUAL -1)
      set(text "")
    else()
      string(SUBSTRING "${text}" ${eol} -1 text)
    endif()
    string(FIND "${block}" "\n" first_end)
    string(SUBSTRING "${block}" 0 ${first_end} first_line)
    if(first_line MATCHES "${regex}")
      set(${out} "${block}\n" PARENT_SCOPE)
      return()
    endif()
  endwhile()
endfunction()

# cubind_expect(<text> <regex> <what>): fails with <what> and the text unless <regex> matches.
function(cubind_expect text regex what)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected a match for '${regex}' in:\n${text}")
  endif()
endfunction()

# cubind_database_arguments(<out> <build dir> <regex>): the "arguments" (JSON) of the entry of
# <build dir>/compile_commands.json whose file matches <regex>; fails when there is none.
function(cubind_database_arguments out build regex)
  file(READ "${build}/compile_commands.json" database)
  string(JSON count LENGTH "${database}")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON file GET "${database}" ${i} file)
    if(file MATCHES "${regex}")
      string(JSON arguments GET "${database}" ${i} arguments)
      set(${out} "${arguments}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "no entry for '${regex}' in ${build}/compile_commands.json:\n${database}")
endfunction()

# common.cmake: helpers for the cmake -P test scripts in this folder.

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

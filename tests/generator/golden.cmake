# golden.cmake: runs cubind-gen on one fixture and compares its outputs with the expected files.
#
#   cmake -DGEN=cubind-gen -DFIXTURE=x.cu -DEXPECTED_DIR=expected -DOUT_DIR=dir
#         -DINCLUDE_DIR=runtime/include [-DEXPECT_STDERR=regex] [-DTOOLKIT_INCLUDE=dir]
#         -P golden.cmake
#
# TOOLKIT_INCLUDE: also pass a symlink copy of the toolkit's include directory as a plain -I,
# so that every toolkit header is found there as a user header (as a -I naming the toolkit's
# include directory did in CI); the outputs must not change.
# With the environment variable CUBIND_UPDATE_GOLDEN=1 it rewrites the expected files instead.
# Runs: 1. with a fresh prelude cache (none yet: a background builder makes it), compared with
# the expected files; 2. with that cache (built by then, or still building: the outputs are the
# same) and 3. with --no-cache: both must leave the outputs untouched (same bytes, so not
# rewritten: same mtime), which also shows the cache changes nothing.
cmake_minimum_required(VERSION 3.20)

get_filename_component(stem "${FIXTURE}" NAME_WE)
file(REMOVE_RECURSE "${OUT_DIR}" "${OUT_DIR}.cache" "${OUT_DIR}.toolkit")
set(includes -I "${INCLUDE_DIR}")
if(DEFINED TOOLKIT_INCLUDE)
  execute_process(COMMAND cp -rs "${TOOLKIT_INCLUDE}" "${OUT_DIR}.toolkit" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "could not make a symlink copy of ${TOOLKIT_INCLUDE}")
  endif()
  list(APPEND includes -I "${OUT_DIR}.toolkit")
endif()
execute_process(
  COMMAND "${GEN}" ${includes} --cache-dir "${OUT_DIR}.cache" -o "${OUT_DIR}" "${FIXTURE}"
  RESULT_VARIABLE rc ERROR_VARIABLE stderr OUTPUT_VARIABLE stdout)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cubind-gen failed (${rc}) on ${FIXTURE}:\n${stderr}")
endif()
if(DEFINED EXPECT_STDERR)
  if(NOT stderr MATCHES "${EXPECT_STDERR}")
    message(FATAL_ERROR "stderr does not match '${EXPECT_STDERR}':\n${stderr}")
  endif()
elseif(NOT stderr STREQUAL "")
  message(FATAL_ERROR "unexpected diagnostics:\n${stderr}")
endif()

foreach(suffix cubind.h cubind.c)
  set(actual "${OUT_DIR}/${stem}.${suffix}")
  set(expected "${EXPECTED_DIR}/${stem}.${suffix}")
  if("$ENV{CUBIND_UPDATE_GOLDEN}" STREQUAL "1")
    configure_file("${actual}" "${expected}" COPYONLY)
    message(STATUS "updated ${expected}")
    continue()
  endif()
  if(NOT EXISTS "${expected}")
    message(FATAL_ERROR "no expected file ${expected}: run with CUBIND_UPDATE_GOLDEN=1")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${actual}" "${expected}"
                  RESULT_VARIABLE differs)
  if(differs)
    execute_process(COMMAND diff -u "${expected}" "${actual}" OUTPUT_VARIABLE diff)
    message(FATAL_ERROR "${actual} differs from ${expected} "
                        "(CUBIND_UPDATE_GOLDEN=1 regenerates it):\n${diff}")
  endif()
endforeach()

# Unchanged content: the later runs must not rewrite the outputs.
foreach(cache_option "--cache-dir;${OUT_DIR}.cache" "--no-cache")
  execute_process(COMMAND stat -c %y "${OUT_DIR}/${stem}.cubind.h" "${OUT_DIR}/${stem}.cubind.c"
                  OUTPUT_VARIABLE before)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E sleep 0.05)
  execute_process(COMMAND "${GEN}" ${includes} ${cache_option} -o "${OUT_DIR}" "${FIXTURE}"
                  RESULT_VARIABLE rc ERROR_VARIABLE stderr)
  execute_process(COMMAND stat -c %y "${OUT_DIR}/${stem}.cubind.h" "${OUT_DIR}/${stem}.cubind.c"
                  OUTPUT_VARIABLE after)
  if(NOT rc EQUAL 0 OR NOT before STREQUAL after)
    message(FATAL_ERROR "run with ${cache_option} rewrote unchanged outputs (rc ${rc}):\n"
                        "${before}${after}${stderr}")
  endif()
endforeach()
file(GLOB leftovers "${OUT_DIR}/.*")
if(leftovers)
  message(FATAL_ERROR "temporary files left behind: ${leftovers}")
endif()

# corpus.cmake: one realistic .cu through cubind-gen: the stubs must compile as strict C99, the
# kernel table must hold EXPECT_KERNELS kernels, every cubin symbol it names must exist in
# `nvcc -cubin -arch=sm_90` output (tests/generator/symbols.cmake), and stderr must be exactly
# EXPECT_STDERR (a regex; empty: nothing).
#   cmake -DGEN=cubind-gen -DSOURCE=x.cu -DOUT_DIR=dir -DINCLUDE_DIR=runtime/include
#         -DCUDA_INCLUDE=... -DCC=cc -DNVCC=nvcc -DREADELF=readelf -DEXPECT_KERNELS=n
#         [-DEXPECT_STDERR=regex] -P corpus.cmake
cmake_minimum_required(VERSION 3.20)
get_filename_component(stem "${SOURCE}" NAME_WE)
file(REMOVE_RECURSE "${OUT_DIR}")
execute_process(COMMAND "${GEN}" -I "${INCLUDE_DIR}" -o "${OUT_DIR}" "${SOURCE}"
                RESULT_VARIABLE rc ERROR_VARIABLE stderr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cubind-gen failed (${rc}) on ${SOURCE}:\n${stderr}")
endif()
if(EXPECT_STDERR)
  if(NOT stderr MATCHES "^${EXPECT_STDERR}$")
    message(FATAL_ERROR "stderr does not match '${EXPECT_STDERR}':\n${stderr}")
  endif()
elseif(NOT stderr STREQUAL "")
  message(FATAL_ERROR "unexpected diagnostics:\n${stderr}")
endif()
set(generated "${OUT_DIR}/${stem}.cubind.c")
execute_process(COMMAND "${CC}" -std=c99 -Wall -Wextra -Werror -pedantic -I "${INCLUDE_DIR}"
                        -isystem "${CUDA_INCLUDE}" -c "${generated}" -o "${OUT_DIR}/${stem}.o"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the generated C does not compile as strict C99:\n${err}")
endif()
file(READ "${generated}" source)
string(REGEX MATCHALL "\n    {\"[A-Za-z0-9_]+\", \"[A-Za-z0-9_]+\", " rows "${source}")
list(LENGTH rows kernels)
if(NOT kernels EQUAL EXPECT_KERNELS)
  message(FATAL_ERROR "${kernels} kernels bound, expected ${EXPECT_KERNELS}:\n${rows}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -DNVCC=${NVCC} -DREADELF=${READELF} -DFIXTURE=${SOURCE}
                        -DGENERATED=${generated} -DINCLUDE_DIR=${INCLUDE_DIR}
                        -DOUT_DIR=${OUT_DIR}/cubin
                        -P "${CMAKE_CURRENT_LIST_DIR}/../generator/symbols.cmake"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${out}")
endif()
message(STATUS "${stem}: ${kernels} kernels bound; ${out}")

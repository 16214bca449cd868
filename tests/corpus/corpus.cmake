# corpus.cmake: one realistic .cu through nvcc and cubind-gen, as add_gpu_kernels runs them:
# nvcc -fatbin for sm_80 and sm_90 (keeping the cubins it holds), then cubind-gen
# --kernels-from that fatbin. The stubs must compile as strict C99, the kernel table must hold
# EXPECT_KERNELS kernels, each of them in nvcc's cubins, every other kernel of those cubins
# must be listed as unbound in the header (the reasons are printed), every cubin symbol the
# stubs name must exist in `nvcc -cubin -arch=sm_90` output (tests/generator/symbols.cmake), and
# stderr must be exactly EXPECT_STDERR (a regex; empty: nothing).
# With EARLIER=y.cu, y.cu is built first and its fatbin passed as --earlier-binary (two .cu files
# of one library that include one header: each header kernel bound once).
#   cmake -DGEN=cubind-gen -DSOURCE=x.cu -DOUT_DIR=dir -DINCLUDE_DIR=runtime/include
#         -DCUDA_INCLUDE=... -DCC=cc -DNVCC=nvcc -DREADELF=readelf -DEXPECT_KERNELS=n
#         [-DEXPECT_UNBOUND=n] [-DEXPECT_STDERR=regex] [-DEARLIER=y.cu] -P corpus.cmake
cmake_minimum_required(VERSION 3.20)
get_filename_component(stem "${SOURCE}" NAME_WE)
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}/keep")
set(fatbin "${OUT_DIR}/${stem}.fatbin")
execute_process(COMMAND "${NVCC}" -fatbin -gencode arch=compute_80,code=sm_80
                        -gencode arch=compute_90,code=sm_90 -I "${INCLUDE_DIR}" --keep
                        --keep-dir "${OUT_DIR}/keep" -o "${fatbin}" "${SOURCE}"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nvcc failed on ${SOURCE}:\n${err}")
endif()
set(earlier "")
if(EARLIER)
  set(earlier_fatbin "${OUT_DIR}/earlier.fatbin")
  execute_process(COMMAND "${NVCC}" -fatbin -gencode arch=compute_80,code=sm_80
                          -gencode arch=compute_90,code=sm_90 -I "${INCLUDE_DIR}"
                          -o "${earlier_fatbin}" "${EARLIER}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nvcc failed on ${EARLIER}:\n${err}")
  endif()
  set(earlier --earlier-binary "${earlier_fatbin}")
endif()
execute_process(COMMAND "${GEN}" -I "${INCLUDE_DIR}" --kernels-from "${fatbin}" ${earlier}
                        -o "${OUT_DIR}" "${SOURCE}"
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
file(READ "${OUT_DIR}/${stem}.cubind.h" source) # the definitions end the header
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
# every kernel of nvcc's cubins: bound, or listed with its reason
file(READ "${OUT_DIR}/${stem}.cubind.h" header)
file(GLOB cubins "${OUT_DIR}/keep/*.cubin")
include("${CMAKE_CURRENT_LIST_DIR}/../generator/cubin_kernels.cmake")
cubind_cubin_kernels(truth "${READELF}" ${cubins})
list(LENGTH truth total)
set(unbound 0)
foreach(symbol IN LISTS truth)
  string(FIND "${source}" "\"${symbol}\"" in_table)
  if(in_table EQUAL -1)
    string(FIND "${header}" "${symbol}" listed)
    if(listed EQUAL -1)
      message(FATAL_ERROR "kernel ${symbol} of nvcc's cubins is neither bound nor listed")
    endif()
    math(EXPR unbound "${unbound} + 1")
  endif()
endforeach()
if(DEFINED EXPECT_UNBOUND AND NOT unbound EQUAL EXPECT_UNBOUND)
  message(FATAL_ERROR "${unbound} kernels listed as unbound, expected ${EXPECT_UNBOUND}")
endif()
set(reasons "")
string(FIND "${header}" "Kernels without C functions" at)
if(at GREATER -1)
  string(SUBSTRING "${header}" ${at} -1 reasons)
  string(REGEX MATCHALL "\n [*]     [^(\n][^\n]*" reasons "${reasons}")
  list(REMOVE_DUPLICATES reasons)
endif()
message(STATUS "${stem}: ${total} kernels in nvcc's cubins (sm_80, sm_90): ${kernels} bound, "
               "${unbound} unbound${reasons}; ${out}")

# kernels_from.cmake: cubind-gen --kernels-from on nvcc's real output for one .cu.
#
#   cmake -DGEN=cubind-gen -DNVCC=nvcc -DREADELF=readelf -DFIXTURE=x.cu -DOUT_DIR=dir
#         -DINCLUDE_DIR=runtime/include -DCC=cc -DCXX=c++ -DCUDA_INCLUDE=dir "-DARCHS=80;90"
#         [-DNVCC_OPTIONS=opt^^opt] [-DGEN_OPTIONS=opt^^opt] [-DEXPECTED_DIR=dir]
#         [-DEXPECT_BOUND=n] [-DEXPECT_EXPLICIT=n] [-DEXPECT_NAMES=name^^name]
#         [-DEXPECT_UNBOUND=regex^^regex] [-DEXPECT_HEADER=regex^^regex]
#         [-DEXPECT_STDERR=regex] [-DEXPLICIT_STDERR=regex]
#         [-DEXPECT_PARSES=what^^what] [-DEXPLICIT_PARSES=n] -P kernels_from.cmake
#
# 1. nvcc builds the fatbin for ARCHS (as add_gpu_kernels does), keeping the cubins it holds;
#    readelf lists each cubin's kernels (entry functions), the ground truth.
# 2. cubind-gen --kernels-from <fatbin>: every kernel readelf lists is either bound (in the
#    kernel table of the generated .c) or listed as unbound in the header; exactly
#    EXPECT_BOUND are bound, EXPECT_NAMES among them (each declares <name>_launch); each
#    EXPECT_UNBOUND regex matches the header's list of unbound kernels, each EXPECT_HEADER regex
#    the header (a prototype's types); stderr matches
#    EXPECT_STDERR (empty: nothing). With EXPECTED_DIR the outputs equal the golden files
#    (CUBIND_UPDATE_GOLDEN=1 rewrites them). Its parses, in order, are EXPECT_PARSES (as
#    CUBIND_GEN_REPORT names them).
# 3. The outputs compile as C99 and as C++17 with -Wall -Wextra -Wcast-qual -Werror -pedantic
#    (C++: -Wold-style-cast too).
# 4. --kernels-from the per-architecture cubins gives the same outputs as the fatbin.
# 5. Without --kernels-from, EXPECT_EXPLICIT kernels are bound (those the source names), in
#    EXPLICIT_PARSES parses (default: one), and stderr matches EXPLICIT_STDERR (empty: nothing).
# 6. The .cu with an error on a last line it gains (a bad line, a namespace left open):
#    --kernels-from reports that error, once, as a run without it does, and writes nothing (the
#    main parse holds its reference lines after the .cu's text, and must not make the
#    user's error theirs or lose it).
cmake_minimum_required(VERSION 3.20)

get_filename_component(stem "${FIXTURE}" NAME_WE)
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}/binary" "${OUT_DIR}/cubins" "${OUT_DIR}/explicit"
                    "${OUT_DIR}/keep")
string(REPLACE "^^" ";" nvcc_options "${NVCC_OPTIONS}")
string(REPLACE "^^" ";" gen_options "${GEN_OPTIONS}") # given to every cubind-gen run
string(REPLACE "^^" ";" expect_unbound "${EXPECT_UNBOUND}")
string(REPLACE "^^" ";" expect_header "${EXPECT_HEADER}")
string(REPLACE "^^" ";" expect_names "${EXPECT_NAMES}")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    list(JOIN ARGN " " shown)
    message(FATAL_ERROR "failed (${rc}): ${shown}\n${out}${err}")
  endif()
  set(run_stdout "${out}" PARENT_SCOPE)
  set(run_stderr "${err}" PARENT_SCOPE)
endfunction()

# 1. nvcc: the fatbin, and (kept with --keep) the very cubins it holds, whose kernels readelf
#    lists. (Cubins built one architecture at a time would differ: nvcc defines
#    __CUDA_ARCH_LIST__ from all the -gencode options, and CCCL names namespaces after it.)
set(gencode "")
foreach(arch IN LISTS ARCHS)
  list(APPEND gencode -gencode "arch=compute_${arch},code=sm_${arch}")
endforeach()
set(fatbin "${OUT_DIR}/${stem}.fatbin")
run("${NVCC}" -fatbin ${gencode} -I "${INCLUDE_DIR}" ${nvcc_options} --keep
    --keep-dir "${OUT_DIR}/keep" -o "${fatbin}" "${FIXTURE}")
file(GLOB cubins "${OUT_DIR}/keep/*.cubin")
list(SORT cubins)
include("${CMAKE_CURRENT_LIST_DIR}/cubin_kernels.cmake")
cubind_cubin_kernels(truth "${READELF}" ${cubins})
list(LENGTH truth total)
list(LENGTH cubins num_cubins)
list(LENGTH ARCHS num_archs)
if(total EQUAL 0 OR NOT num_cubins EQUAL num_archs)
  message(FATAL_ERROR "expected one cubin per architecture with kernels, found: ${cubins}")
endif()

# 2. cubind-gen --kernels-from the fatbin, reporting its parses (CUBIND_GEN_REPORT)
execute_process(COMMAND "${CMAKE_COMMAND}" -E env CUBIND_GEN_REPORT=1
                        "${GEN}" ${gen_options} -I "${INCLUDE_DIR}" --no-cache
                        --kernels-from "${fatbin}"
                        -o "${OUT_DIR}/binary" "${FIXTURE}"
                RESULT_VARIABLE rc ERROR_VARIABLE stderr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cubind-gen --kernels-from failed (${rc}):\n${stderr}")
endif()
string(REGEX MATCHALL "cubind-gen: parse of [^,\n]*" parses "${stderr}")
string(REGEX REPLACE "cubind-gen: [^\n]*\n" "" stderr "${stderr}")
list(TRANSFORM parses REPLACE "^cubind-gen: parse of " "")
list(JOIN parses "^^" parses)
if(DEFINED EXPECT_PARSES AND NOT parses STREQUAL EXPECT_PARSES)
  message(FATAL_ERROR "parses: '${parses}', expected '${EXPECT_PARSES}'")
endif()
if(DEFINED EXPECT_STDERR AND NOT EXPECT_STDERR STREQUAL "")
  if(NOT stderr MATCHES "^${EXPECT_STDERR}$")
    message(FATAL_ERROR "stderr does not match '${EXPECT_STDERR}':\n${stderr}")
  endif()
elseif(NOT stderr STREQUAL "")
  message(FATAL_ERROR "unexpected diagnostics:\n${stderr}")
endif()
set(header "${OUT_DIR}/binary/${stem}.cubind.h")
set(source "${OUT_DIR}/binary/${stem}.cubind.h") # the definitions end the header
file(READ "${header}" header_text)
file(READ "${source}" source_text)
string(REGEX MATCHALL "\n    {\"[A-Za-z0-9_]+\", \"[A-Za-z0-9_]+\", " rows "${source_text}")
set(bound_symbols "")
foreach(row IN LISTS rows)
  string(REGEX REPLACE ".*\", \"([A-Za-z0-9_]+)\", $" "\\1" symbol "${row}")
  list(APPEND bound_symbols "${symbol}")
endforeach()
string(FIND "${header_text}" "Kernels without C functions" listed_at)
set(unbound_text "")
if(listed_at GREATER -1)
  string(SUBSTRING "${header_text}" ${listed_at} -1 unbound_text)
endif()
set(bound 0)
set(unbound 0)
foreach(symbol IN LISTS truth)
  if(symbol IN_LIST bound_symbols)
    math(EXPR bound "${bound} + 1")
  else()
    string(FIND "${unbound_text}" "${symbol}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "kernel ${symbol} of the binary is neither bound nor listed:\n"
                          "${header_text}")
    endif()
    math(EXPR unbound "${unbound} + 1")
  endif()
endforeach()
foreach(symbol IN LISTS bound_symbols)
  if(NOT symbol IN_LIST truth)
    message(FATAL_ERROR "bound symbol ${symbol} is not a kernel of the binary")
  endif()
endforeach()
if(DEFINED EXPECT_BOUND AND NOT bound EQUAL EXPECT_BOUND)
  message(FATAL_ERROR "${bound} of ${total} kernels bound, expected ${EXPECT_BOUND}")
endif()
foreach(name IN LISTS expect_names)
  string(FIND "${header_text}" "cubind_status ${name}_launch(" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the header declares no ${name}_launch:\n${header_text}")
  endif()
endforeach()
foreach(regex IN LISTS expect_unbound)
  if(NOT unbound_text MATCHES "${regex}")
    message(FATAL_ERROR "the list of unbound kernels does not match '${regex}':\n"
                        "${unbound_text}")
  endif()
endforeach()
foreach(regex IN LISTS expect_header)
  if(NOT header_text MATCHES "${regex}")
    message(FATAL_ERROR "the header does not match '${regex}':\n${header_text}")
  endif()
endforeach()
if(EXPECTED_DIR)
  foreach(suffix cubind.h cubind.c)
    set(expected "${EXPECTED_DIR}/${stem}.${suffix}")
    if("$ENV{CUBIND_UPDATE_GOLDEN}" STREQUAL "1")
      configure_file("${OUT_DIR}/binary/${stem}.${suffix}" "${expected}" COPYONLY)
      continue()
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files
                            "${OUT_DIR}/binary/${stem}.${suffix}" "${expected}"
                    RESULT_VARIABLE differs)
    if(differs)
      execute_process(COMMAND diff -u "${expected}" "${OUT_DIR}/binary/${stem}.${suffix}"
                      OUTPUT_VARIABLE diff)
      message(FATAL_ERROR "differs from ${expected} (CUBIND_UPDATE_GOLDEN=1 regenerates it):\n"
                          "${diff}")
    endif()
  endforeach()
endif()

# 3. strict C99 and C++17
set(strict -Wall -Wextra -Wcast-qual -Werror -pedantic -I "${INCLUDE_DIR}" -isystem "${CUDA_INCLUDE}")
run("${CC}" -std=c99 ${strict} -c "${source}" -o "${OUT_DIR}/c99.o")
run("${CXX}" -std=c++17 ${strict} -Wold-style-cast -x c++ -c "${source}" -o "${OUT_DIR}/cxx.o")

# 4. the cubins give the same outputs as the fatbin
set(from_cubins "")
foreach(cubin IN LISTS cubins)
  list(APPEND from_cubins --kernels-from "${cubin}")
endforeach()
execute_process(COMMAND "${GEN}" ${gen_options} -I "${INCLUDE_DIR}" --no-cache ${from_cubins}
                        -o "${OUT_DIR}/cubins" "${FIXTURE}"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
foreach(suffix cubind.h cubind.c)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${OUT_DIR}/cubins/${stem}.${suffix}"
                          "${OUT_DIR}/binary/${stem}.${suffix}"
                  RESULT_VARIABLE differs)
  if(NOT rc EQUAL 0 OR differs)
    message(FATAL_ERROR "--kernels-from the cubins (${rc}) differs from the fatbin:\n${err}")
  endif()
endforeach()

# 5. without --kernels-from: only what the source names
execute_process(COMMAND "${CMAKE_COMMAND}" -E env CUBIND_GEN_REPORT=1
                        "${GEN}" ${gen_options} -I "${INCLUDE_DIR}" --no-cache
                        -o "${OUT_DIR}/explicit"
                        "${FIXTURE}"
                RESULT_VARIABLE rc ERROR_VARIABLE stderr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cubind-gen without --kernels-from failed (${rc}):\n${stderr}")
endif()
string(REGEX MATCHALL "cubind-gen: parse of [^,\n]*" parses "${stderr}")
string(REGEX REPLACE "cubind-gen: [^\n]*\n" "" stderr "${stderr}")
list(LENGTH parses num_parses)
if(NOT DEFINED EXPLICIT_PARSES)
  set(EXPLICIT_PARSES 1) # explicit instantiations are resolved by the main parse itself
endif()
if(NOT num_parses EQUAL EXPLICIT_PARSES)
  message(FATAL_ERROR "without --kernels-from: ${num_parses} parses (${parses}), expected "
                      "${EXPLICIT_PARSES}")
endif()
if(DEFINED EXPLICIT_STDERR AND NOT EXPLICIT_STDERR STREQUAL "")
  if(NOT stderr MATCHES "^${EXPLICIT_STDERR}$")
    message(FATAL_ERROR "stderr without --kernels-from does not match '${EXPLICIT_STDERR}':\n"
                        "${stderr}")
  endif()
elseif(NOT stderr STREQUAL "")
  message(FATAL_ERROR "unexpected diagnostics without --kernels-from:\n${stderr}")
endif()
file(READ "${OUT_DIR}/explicit/${stem}.cubind.h" explicit_text)
string(REGEX MATCHALL "\n    {\"[A-Za-z0-9_]+\", \"[A-Za-z0-9_]+\", " explicit_rows
       "${explicit_text}")
list(LENGTH explicit_rows explicit_count)
if(DEFINED EXPECT_EXPLICIT AND NOT explicit_count EQUAL EXPECT_EXPLICIT)
  message(FATAL_ERROR "${explicit_count} kernels bound without --kernels-from, expected "
                      "${EXPECT_EXPLICIT}")
endif()
# 6. an error at the end of the .cu: a bad line, and a namespace left open (clang reports it
#    after the last token, where the references would follow)
get_filename_component(fixture_dir "${FIXTURE}" DIRECTORY)
file(READ "${FIXTURE}" fixture_text)
string(REGEX MATCHALL "\n" newlines "${fixture_text}")
list(LENGTH newlines last_line)
math(EXPR last_line "${last_line} + 1")
foreach(ending bad_line open_namespace)
  set(broken "${OUT_DIR}/${stem}_${ending}.cu") # -I its directory: its own includes resolve
  if(ending STREQUAL "bad_line")
    file(WRITE "${broken}" "${fixture_text}int cubind_test_broken = ;\n")
  else()
    file(WRITE "${broken}" "${fixture_text}namespace cubind_test_open {\n")
  endif()
  file(REMOVE_RECURSE "${OUT_DIR}/broken")
  foreach(with binary plain)
    set(from "")
    if(with STREQUAL "binary")
      set(from --kernels-from "${fatbin}")
    endif()
    execute_process(COMMAND "${GEN}" ${gen_options} -I "${INCLUDE_DIR}" -I "${fixture_dir}"
                            --no-cache ${from}
                            -o "${OUT_DIR}/broken" "${broken}"
                    RESULT_VARIABLE rc ERROR_VARIABLE err_${with})
    string(REGEX MATCHALL "error:" errors "${err_${with}}")
    list(LENGTH errors num_errors)
    if(rc EQUAL 0 OR NOT num_errors EQUAL 1 OR EXISTS "${OUT_DIR}/broken" OR
       NOT err_${with} MATCHES "_${ending}\\.cu:${last_line}:[0-9]+: error: ")
      message(FATAL_ERROR "${ending} (${with}): rc ${rc}, expected one error on line "
                          "${last_line} and no output:\n${err_${with}}")
    endif()
  endforeach()
  if(NOT err_binary STREQUAL err_plain)
    message(FATAL_ERROR "${ending}: --kernels-from reports the error otherwise:\n${err_binary}\n"
                        "without it:\n${err_plain}")
  endif()
endforeach()

message(STATUS "${stem}: ${total} kernels in the cubins for ${ARCHS}: ${bound} bound, "
               "${unbound} listed as unbound; ${explicit_count} bound without --kernels-from")

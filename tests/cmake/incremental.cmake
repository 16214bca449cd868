# Incremental rebuilds of add_gpu_kernels(), with one generator: builds a copy of
# tests/cmake/incremental against the installed package, then checks from the build's output
# (each step prints its COMMENT, "Building ..." or "Linking ...") that
#   - a second build does nothing,
#   - touching one.cuh (included by one.cu) reruns one.cu's steps only (two.cu's cubind-gen
#     reads one.cu's binary, --earlier-binary, so it reruns too, but writes the same bytes:
#     nothing of two.cu is compiled again),
#   - editing two.cu reruns two.cu's steps only,
# and that a second build directory produces byte-identical generated files (reproducibility).
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=Ninja -DC_COMPILER=cc -P incremental.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX WORK_DIR GENERATOR C_COMPILER)
set(src "${WORK_DIR}/src")
file(REMOVE_RECURSE "${WORK_DIR}")
file(COPY "${CMAKE_CURRENT_LIST_DIR}/incremental/" DESTINATION "${src}")

function(configure build)
  cubind_run(output "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G "${GENERATOR}"
             "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${C_COMPILER}")
endfunction()

# build_expect(<what> [RAN <regex>...] [NOT_RAN <regex>...]): builds; each RAN regex must match
# the output, no NOT_RAN regex may.
function(build_expect what)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "RAN;NOT_RAN")
  cubind_run(output "${CMAKE_COMMAND}" --build "${WORK_DIR}/build")
  foreach(regex IN LISTS arg_RAN)
    if(NOT output MATCHES "${regex}")
      message(FATAL_ERROR "${GENERATOR}, ${what}: expected a step matching '${regex}':\n${output}")
    endif()
  endforeach()
  foreach(regex IN LISTS arg_NOT_RAN)
    if(output MATCHES "${regex}")
      message(FATAL_ERROR "${GENERATOR}, ${what}: nothing should match '${regex}':\n${output}")
    endif()
  endforeach()
  message(STATUS "${GENERATOR}, ${what}: as expected")
endfunction()

set(any_step "cubind: |Building |Linking ")
configure("${WORK_DIR}/build")
build_expect("first build" RAN "cubind: nvcc one.cu" "cubind: nvcc two.cu" "Linking C executable")
build_expect("second build, nothing changed" NOT_RAN "${any_step}")

file(TOUCH "${src}/one.cuh")
# (make has no restat: the rerun step touches two.cu's stubs, which make then compiles again)
set(two_stubs "two\\.cubind\\.c\\.o")
if(NOT GENERATOR MATCHES "Ninja")
  set(two_stubs "")
endif()
build_expect("one.cuh touched"
             RAN "cubind: nvcc one.cu" "cubind: cubind-gen one.cu"
             NOT_RAN "nvcc two" "embedding [^\n]*two" "two\\.fatbin\\.c\\.o" ${two_stubs})
build_expect("then nothing changed" NOT_RAN "${any_step}")

file(APPEND "${src}/two.cu" "// edited\n")
build_expect("two.cu edited"
             RAN "cubind: nvcc two.cu" "cubind: cubind-gen two.cu" "cubind: embedding"
             NOT_RAN "one\\.(cu|fatbin)")
build_expect("then nothing changed" NOT_RAN "${any_step}")

# Same inputs, another directory: the same bytes.
configure("${WORK_DIR}/build2")
cubind_run(output "${CMAKE_COMMAND}" --build "${WORK_DIR}/build2")
foreach(file IN ITEMS one.fatbin one.cubind.h one.cubind.c one.fatbin.c
                      two.fatbin two.cubind.h two.cubind.c two.fatbin.c)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files
                          "${WORK_DIR}/build/kernels/${file}" "${WORK_DIR}/build2/kernels/${file}"
                  RESULT_VARIABLE differ)
  if(differ)
    message(FATAL_ERROR "${file} differs between two build directories of the same sources")
  endif()
endforeach()
message(STATUS "${GENERATOR}: generated files identical across build directories")

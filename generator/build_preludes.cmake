# build_preludes.cmake: precompiles the installed preludes (generator/prelude_cache.h) with the
# cubind-gen that will read them, into the directory it looks in (<bin>/../share/cubind/preludes):
# clang's CUDA headers (the base prelude, also as host OpenMP code sees them) and, for each
# architecture list, each group of headers that is dear to parse (CUB, Thrust, cooperative
# groups, <curand_kernel.h>, <iostream> ...). A run's first parse of a file
# that begins with them then costs a fraction of nvcc's, with an empty cache.
#
#   cmake -DGEN=<cubind-gen> -DDIR=<preludes dir> "-DARCH_LISTS=none;90"
#         "-DGROUPS=cub/cub.cuh;cooperative_groups.h,cooperative_groups/reduce.h"
#         "-DCHECKED=thrust:thrust/transform.h" [-DOPENMP=ON] [-DSTANDARDS=c++14;c++20]
#         [-DVARIANTS=--extended-lambda "-DVARIANT_GROUPS=cub/cub.cuh;thrust/transform.h"]
#         [-DLIGHT_VARIANTS=-rdc=true -DLIGHT_VARIANT_GROUPS=cooperative_groups.h]
#         [-DBASE_ARCH_LISTS=80;86 -DBASE_ARCH_GROUPS=cub/cub.cuh]
#         [-DSTAMP=<file>]
#         -P build_preludes.cmake
#
# ARCH_LISTS: `none` (a run without a binary) or SM numbers joined by commas, as the binary's
# cubins are (`80,90`: __CUDA_ARCH_LIST__ is part of CCCL's namespaces). GROUPS: headers joined
# by commas, included in that order. CHECKED: checked groups (prelude_cache.h: prelude_attempt),
# each `<libraries>:<headers>` (both joined by commas): tried for a .cu that includes a header of
# one of the libraries, and taken where its parse shows them read. OPENMP: each list's groups also as host OpenMP code sees
# them (nvcc -Xcompiler -fopenmp: its _OPENMP changes what the C++ library's headers declare,
# so they make preludes of their own); the OpenMP base prelude is built either way. STANDARDS:
# C++ standards besides the default c++17 whose base prelude each list gets (`-std=c++14`
# code: the toolkit's headers parse as that standard sees them, a prelude of their own).
# VARIANTS: nvcc options that define a macro the toolkit's headers name (--extended-lambda:
# cuda_runtime.h includes <functional> for __CUDACC_EXTENDED_LAMBDA__), so that no prelude
# built without it fits a run with it, or that set the standard (-std=c++20); each list gets
# the base and VARIANT_GROUPS (groups of GROUPS, or the headers of CHECKED ones) built with
# each option; LIGHT_VARIANTS: such options for which the base and LIGHT_VARIANT_GROUPS are
# built. <DIR>/variants names them all: a run with one takes them (a macro's option: the macro
# keys them, parse.h: variant_defines; -std keys every prelude). BASE_ARCH_LISTS: more
# architecture lists, each given the base (plain, and with OPENMP as host OpenMP code sees it)
# and BASE_ARCH_GROUPS: a binary of sm_80 alone parses with __CUDA_ARCH__ 800, which no list's
# prelude fits. What an earlier run left in the directory (preludes, shim headers) is removed
# first, and nothing else:
# an older cubind-gen's are never read again (a key holds every clang argument). A prelude that
# fails to build is reported and left out; the build goes on (the cache is an optimisation).
cmake_minimum_required(VERSION 3.20)

foreach(required GEN DIR)
  if(NOT ${required})
    message(FATAL_ERROR "build_preludes.cmake: ${required} is not set")
  endif()
endforeach()

file(MAKE_DIRECTORY "${DIR}")
file(REAL_PATH "${DIR}" DIR) # as cubind-gen finds it (realpath): its path is part of every key
# Only what this script and cubind-gen make there is removed, never the directory itself
file(GLOB old_files "${DIR}/prelude-*" "${DIR}/.prelude-*" "${DIR}/groups" "${DIR}/variants")
file(GLOB old_dirs "${DIR}/shim-clang*" "${DIR}/.seeds")
if(old_files OR old_dirs)
  file(REMOVE_RECURSE ${old_files} ${old_dirs})
endif()
set(work "${DIR}/.seeds")
file(MAKE_DIRECTORY "${work}")

# The groups' seeds: a .cu of only their #include lines. The first seed also builds the base.
set(index 0)
# add_seed(GROUP LIST): writes the seed of GROUP (headers joined by commas), appends its path
function(add_seed group list)
  string(REPLACE "," ";" headers "${group}")
  set(text "")
  foreach(header IN LISTS headers)
    string(APPEND text "#include <${header}>\n")
  endforeach()
  file(WRITE "${work}/seed${index}.cu" "${text}")
  list(APPEND ${list} "${work}/seed${index}.cu")
  set(${list} "${${list}}" PARENT_SCOPE)
  math(EXPR index "${index} + 1")
  set(index ${index} PARENT_SCOPE)
endfunction()
set(seeds "")
set(group_lines "${GROUPS}")
foreach(checked IN LISTS CHECKED)
  if(NOT checked MATCHES "^([^:]+):(.+)$")
    message(FATAL_ERROR "build_preludes.cmake: '${checked}' in CHECKED is not <libraries>:<headers>")
  endif()
  list(APPEND group_lines "checked ${CMAKE_MATCH_1} ${CMAKE_MATCH_2}")
endforeach()
foreach(group IN LISTS group_lines)
  string(REGEX REPLACE "^checked [^ ]+ " "" group "${group}")
  add_seed("${group}" seeds)
endforeach()
if(NOT seeds)
  file(WRITE "${work}/base.cu" "")
  list(APPEND seeds "${work}/base.cu")
endif()
# The variants' seeds, the base's first; the options, before any run reads the directory
file(WRITE "${work}/variant_base.cu" "")
foreach(kind variant light_variant base_arch)
  string(TOUPPER "${kind}_GROUPS" groups)
  set(${kind}_seeds "${work}/variant_base.cu")
  foreach(group IN LISTS ${groups})
    add_seed("${group}" ${kind}_seeds)
  endforeach()
endforeach()
if(VARIANTS OR LIGHT_VARIANTS)
  string(REPLACE ";" "\n" variant_lines "${VARIANTS};${LIGHT_VARIANTS}")
  string(STRIP "${variant_lines}" variant_lines)
  file(WRITE "${DIR}/variants" "${variant_lines}\n")
endif()

# prepare(SEED ARGS...): cubind-gen --prepare of the seed with the arguments; the directory is
# its own cache, and its shim headers are the ones runs will name
function(prepare seed)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env "CUBIND_GEN_PRELUDE_DIR=${DIR}"
            "${GEN}" --prepare --cache-dir "${DIR}" ${ARGN} -o "${work}" "${seed}"
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " shown "${ARGN}")
    message(WARNING "cubind-gen --prepare ${shown} ${seed} failed (${result}): ${output}")
  endif()
endfunction()

set(openmp_variants "plain")
if(OPENMP)
  list(APPEND openmp_variants "openmp")
endif()
set(plain_args "") # each OpenMP variant's arguments
set(openmp_args --nvcc-options -Xcompiler -fopenmp --)
foreach(archs IN LISTS ARCH_LISTS)
  set(arch_args "")
  if(NOT archs STREQUAL "none")
    set(arch_args --binary-archs "${archs}")
  endif()
  foreach(variant IN LISTS openmp_variants)
    foreach(seed IN LISTS seeds)
      prepare("${seed}" ${${variant}_args} ${arch_args})
    endforeach()
  endforeach()
  foreach(standard IN LISTS STANDARDS)
    file(WRITE "${work}/standard.cu" "")
    prepare("${work}/standard.cu" "-std=${standard}" ${arch_args})
  endforeach()
  foreach(kind variant light_variant)
    string(TOUPPER "${kind}S" options)
    foreach(option IN LISTS ${options})
      foreach(seed IN LISTS ${kind}_seeds)
        prepare("${seed}" --nvcc-options ${option} -- ${arch_args})
      endforeach()
    endforeach()
  endforeach()
endforeach()
foreach(archs IN LISTS BASE_ARCH_LISTS)
  foreach(variant IN LISTS openmp_variants)
    prepare("${work}/variant_base.cu" ${${variant}_args} --binary-archs "${archs}")
  endforeach()
  foreach(seed IN LISTS base_arch_seeds) # the base again (prepared above), then the groups
    prepare("${seed}" --binary-archs "${archs}")
  endforeach()
endforeach()
# host OpenMP code's base (one for every architecture list: the shared base leaves
# __CUDA_ARCH_LIST__ out), when no group made it
if(ARCH_LISTS AND NOT OPENMP)
  file(WRITE "${work}/openmp.cu" "")
  prepare("${work}/openmp.cu" ${openmp_args})
endif()

# The groups, one a line, for runs whose .cu includes them only through other headers
# (prelude_cache.c: add_group_candidates)
string(REPLACE ";" "\n" group_lines "${group_lines}")
file(WRITE "${DIR}/groups" "${group_lines}\n")

# Leave only the preludes: no builder's lock or leftover list, no seeds.
file(GLOB leftovers "${DIR}/*.lock" "${DIR}/*.want-*")
if(leftovers)
  file(REMOVE ${leftovers})
endif()
file(REMOVE_RECURSE "${work}")
file(GLOB preludes "${DIR}/prelude-*.pch")
list(LENGTH preludes count)
set(bytes 0)
foreach(prelude IN LISTS preludes)
  file(SIZE "${prelude}" size)
  math(EXPR bytes "${bytes} + ${size} / 1048576")
endforeach()
message(STATUS "cubind-gen preludes: ${count} in ${DIR} (${bytes} MiB), for ${ARCH_LISTS}"
               " (${openmp_variants}); the base and ${BASE_ARCH_GROUPS} for ${BASE_ARCH_LISTS}")
if(STAMP)
  file(TOUCH "${STAMP}")
endif()

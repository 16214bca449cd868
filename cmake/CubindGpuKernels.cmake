# CubindGpuKernels.cmake: add_gpu_kernels(), which turns .cu files into a C library.
#
#   add_gpu_kernels(<target>
#     SOURCES <file.cu>...              the kernels (relative paths: to the current source dir)
#     [ARCHS <sm>...]                   machine code (SASS) for these, e.g. 80 90; default below
#     [PTX]                             also embed PTX for the highest ARCH, so newer GPUs can JIT it
#     [EXPLICIT_KERNELS_ONLY]           bind only the kernels the source names (plain kernels and
#                                       explicit template instantiations), a fixed API; default:
#                                       every kernel nvcc emitted, implicit instantiations too
#     [INCLUDE_DIRECTORIES <dir>...]    -I for nvcc and cubind-gen
#     [COMPILE_OPTIONS <option>...])    extra nvcc options; the -D... and -std=... ones also go to
#                                       cubind-gen, so it sees the kernels nvcc compiles
#
# Example:
#   find_package(cubind REQUIRED)                    # or add_subdirectory(cubind)
#   add_gpu_kernels(vec_kernels SOURCES vec.cu ARCHS 80 90)
#   add_executable(app main.c)
#   target_link_libraries(app PRIVATE vec_kernels)   # main.c: #include "vec.cubind.h"
#
# For each <stem>.cu, three build steps write into ${CMAKE_CURRENT_BINARY_DIR}/<target>/:
#   nvcc -fatbin                 <stem>.cu     -> <stem>.fatbin  (SASS for every ARCH [+ PTX])
#   cubind-gen --kernels-from <stem>.fatbin
#                                <stem>.cu     -> <stem>.cubind.h + <stem>.cubind.c  (C stubs
#                                                 for every kernel in the fatbin's cubins: the
#                                                 ones the .cu names and the templates its host
#                                                 code instantiates by launching them)
#   cubind-gen --embed-fatbin    <stem>.fatbin -> <module>.fatbin.c  (the fatbin as a C array)
# (<module> is <stem> made a C identifier.) <target> is a static library of the generated .c
# files; whoever links it gets the generated headers' directory and cubind::runtime. nvcc and
# cubind-gen write dependency files, so editing a .cu or a header it includes rebuilds only
# what that .cu produces. The outputs hold no paths or timestamps: same inputs, same bytes.
#
# Cache variables (all optional):
#   CUBIND_DEFAULT_ARCHS    the ARCHS used when none are given: 75 80 86 89 90 100 120 (Turing to
#                           Blackwell, Hopper included), less those this nvcc cannot target.
#                           nvcc 13 dropped everything older than sm_75.
#   CUBIND_NVCC_EXECUTABLE  the nvcc to run. Default: CMAKE_CUDA_COMPILER, FindCUDAToolkit's
#                           nvcc, $CUDACXX, or nvcc on PATH / in $CUDA_PATH or /usr/local/cuda.
#   CUBIND_GEN_EXECUTABLE   the cubind-gen to run. Default: the cubind-gen target of this build,
#                           else the imported cubind::gen. Set it to a build-host cubind-gen
#                           when cross-compiling.
#
# Needs CMake 3.20 (dependency files of custom commands with the Makefile generators).

include_guard(GLOBAL)
if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "add_gpu_kernels() needs CMake 3.20 or newer; this is CMake ${CMAKE_VERSION}")
endif()
# Recorded by the functions below, whatever the including project asks for. CMP0116 NEW: the
# dependency files' paths are rewritten for Ninja as CMake documents it.
cmake_policy(VERSION 3.20...3.25)

# Finds nvcc once, into the cache variable CUBIND_NVCC_EXECUTABLE; a clear error when there is
# none.
function(_cubind_find_nvcc caller)
  if(NOT CUBIND_NVCC_EXECUTABLE)
    foreach(candidate IN ITEMS "${CMAKE_CUDA_COMPILER}" "${CUDAToolkit_NVCC_EXECUTABLE}"
                               "$ENV{CUDACXX}")
      if(candidate AND EXISTS "${candidate}")
        set(CUBIND_NVCC_EXECUTABLE "${candidate}" CACHE FILEPATH "nvcc used by add_gpu_kernels()")
        break()
      endif()
    endforeach()
    find_program(CUBIND_NVCC_EXECUTABLE nvcc
                 HINTS "${CUDAToolkit_BIN_DIR}" "$ENV{CUDA_PATH}/bin" /usr/local/cuda/bin
                 DOC "nvcc used by add_gpu_kernels()")
  endif()
  if(NOT CUBIND_NVCC_EXECUTABLE OR NOT EXISTS "${CUBIND_NVCC_EXECUTABLE}")
    message(FATAL_ERROR
      "${caller}: nvcc, the CUDA compiler, was not found (CUBIND_NVCC_EXECUTABLE is "
      "'${CUBIND_NVCC_EXECUTABLE}'). Install the CUDA toolkit and put its bin/ on PATH, or pass "
      "-DCUBIND_NVCC_EXECUTABLE=/path/to/nvcc (or -DCUDAToolkit_ROOT=/path/to/cuda).")
  endif()
endfunction()

# The default ARCHS: the list in the usage comment, less the architectures this nvcc lacks.
function(_cubind_default_archs out)
  if(NOT DEFINED CUBIND_DEFAULT_ARCHS)
    execute_process(COMMAND "${CUBIND_NVCC_EXECUTABLE}" --list-gpu-arch
                    OUTPUT_VARIABLE supported RESULT_VARIABLE rc ERROR_QUIET)
    set(archs "")
    foreach(arch IN ITEMS 75 80 86 89 90 100 120)
      # An nvcc too old for --list-gpu-arch (before CUDA 11) gets the list unfiltered.
      if(NOT rc EQUAL 0 OR supported MATCHES "compute_${arch}([^0-9]|$)")
        list(APPEND archs ${arch})
      endif()
    endforeach()
    set(CUBIND_DEFAULT_ARCHS "${archs}" CACHE STRING
        "Architectures add_gpu_kernels() compiles for when given no ARCHS")
  endif()
  set(${out} "${CUBIND_DEFAULT_ARCHS}" PARENT_SCOPE)
endfunction()

function(add_gpu_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PTX;EXPLICIT_KERNELS_ONLY" ""
                        "SOURCES;ARCHS;INCLUDE_DIRECTORIES;COMPILE_OPTIONS")
  set(caller "add_gpu_kernels(${target})")
  set(usage "Expected: add_gpu_kernels(<target> SOURCES <file.cu>... [ARCHS <sm>...] [PTX] "
            "[EXPLICIT_KERNELS_ONLY] [INCLUDE_DIRECTORIES <dir>...] "
            "[COMPILE_OPTIONS <option>...])")
  string(CONCAT usage ${usage})
  # A misspelt keyword after a list (SOURCES k.cu ARCH 90) lands in that list: upper-case
  # words there are taken for keywords too.
  set(unknown ${arg_UNPARSED_ARGUMENTS})
  foreach(value IN LISTS arg_SOURCES arg_ARCHS arg_INCLUDE_DIRECTORIES arg_COMPILE_OPTIONS)
    if(value MATCHES "^[A-Z][A-Z_]+$")
      list(APPEND unknown ${value})
    endif()
  endforeach()
  if(unknown)
    message(FATAL_ERROR "${caller}: unknown argument(s): ${unknown}. ${usage}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "${caller}: no SOURCES given")
  endif()
  foreach(keyword IN ITEMS ARCHS INCLUDE_DIRECTORIES COMPILE_OPTIONS)
    if(keyword IN_LIST arg_KEYWORDS_MISSING_VALUES)
      message(FATAL_ERROR "${caller}: ${keyword} is given without values")
    endif()
  endforeach()

  _cubind_find_nvcc("${caller}")
  if(NOT arg_ARCHS)
    _cubind_default_archs(arg_ARCHS)
  endif()
  foreach(arch IN LISTS arg_ARCHS)
    if(NOT arch MATCHES "^[0-9]+[a-z]?$")
      message(FATAL_ERROR "${caller}: ARCHS entry '${arch}' is not an architecture number "
                          "such as 80, 90 or 90a (write 80, not sm_80)")
    endif()
  endforeach()

  # cubind-gen: a cross build's host tool, this build's target, or the installed one.
  if(CUBIND_GEN_EXECUTABLE)
    set(gen "${CUBIND_GEN_EXECUTABLE}")
  elseif(TARGET cubind-gen)
    set(gen "$<TARGET_FILE:cubind-gen>")
  elseif(TARGET cubind::gen)
    set(gen "$<TARGET_FILE:cubind::gen>")
  else()
    message(FATAL_ERROR "${caller}: no cubind-gen: build it (CUBIND_BUILD_GENERATOR=ON), "
      "find_package(cubind), or pass -DCUBIND_GEN_EXECUTABLE=/path/to/cubind-gen")
  endif()
  if(NOT TARGET cubind::runtime)
    message(FATAL_ERROR "${caller}: no cubind::runtime target: add_subdirectory(cubind) or "
                        "find_package(cubind) first")
  endif()

  # nvcc options: one -gencode per architecture, PTX of the highest one on request.
  list(SORT arg_ARCHS COMPARE NATURAL)
  set(gencode "")
  foreach(arch IN LISTS arg_ARCHS)
    list(APPEND gencode -gencode "arch=compute_${arch},code=sm_${arch}")
  endforeach()
  if(arg_PTX)
    list(GET arg_ARCHS -1 highest)
    list(APPEND gencode -gencode "arch=compute_${highest},code=compute_${highest}")
  endif()
  if(CMAKE_CUDA_HOST_COMPILER)
    list(APPEND gencode -ccbin "${CMAKE_CUDA_HOST_COMPILER}")
  endif()

  # Include directories: the user's, then cubind's own (for cubind/annotations.h), which is
  # runtime/include in this tree and <prefix>/include once installed. Not the runtime target's
  # transitive ones: they hold the toolkit's include directory, which as a plain -I would turn
  # the toolkit's headers into user headers (nvcc and clang already search it as a system one).
  get_property(header_dir GLOBAL PROPERTY CUBIND_HEADER_DIR)
  set(includes "")
  foreach(dir IN LISTS arg_INCLUDE_DIRECTORIES header_dir)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND includes "-I${dir}")
  endforeach()

  # cubind-gen parses the .cu as nvcc does: same macros, same language standard.
  set(gen_options "")
  foreach(option IN LISTS arg_COMPILE_OPTIONS)
    if(option MATCHES "^-D.|^-std=")
      list(APPEND gen_options "${option}")
    endif()
  endforeach()
  get_filename_component(nvcc_real "${CUBIND_NVCC_EXECUTABLE}" REALPATH)
  get_filename_component(cuda_path "${nvcc_real}" DIRECTORY)
  get_filename_component(cuda_path "${cuda_path}" DIRECTORY)

  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  file(MAKE_DIRECTORY "${out_dir}")
  set(generated "")
  set(modules "")
  set(source_dirs "")
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(source "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(source_dir "${source}" DIRECTORY)
    list(APPEND source_dirs "${source_dir}")
    # NAME_WLE: only the last extension goes, as cubind-gen names its outputs (a.b.cu -> a.b).
    get_filename_component(stem "${source}" NAME_WLE)
    string(MAKE_C_IDENTIFIER "${stem}" module)
    if(module IN_LIST modules)
      message(FATAL_ERROR "${caller}: two SOURCES give the module name '${module}' "
                          "(${source}); rename one")
    endif()
    list(APPEND modules ${module})
    # One module name per program: every module defines cubind_fatbin_<module> and its
    # <stem>.cubind.h; from two static libraries the linker would silently take one fatbin for
    # both, and the other library's kernels would be looked up in it at run time.
    get_property(owner GLOBAL PROPERTY CUBIND_MODULE_OWNER_${module})
    if(owner AND NOT owner STREQUAL "${target}")
      get_property(owner_source GLOBAL PROPERTY CUBIND_MODULE_SOURCE_${module})
      message(FATAL_ERROR "${caller}: module name '${module}' (${source}) is already used by "
                          "add_gpu_kernels(${owner}) (${owner_source}): both would define "
                          "cubind_fatbin_${module} and ${stem}.cubind.h, and a program linking "
                          "both would load the wrong kernels; rename one of the files")
    endif()
    set_property(GLOBAL PROPERTY CUBIND_MODULE_OWNER_${module} "${target}")
    set_property(GLOBAL PROPERTY CUBIND_MODULE_SOURCE_${module} "${source}")
    set(fatbin "${out_dir}/${stem}.fatbin")
    set(header "${out_dir}/${stem}.cubind.h")
    set(stubs "${out_dir}/${stem}.cubind.c")
    set(embedded "${out_dir}/${module}.fatbin.c")
    # cubind-gen leaves an output that would not change untouched. Ninja notices (it re-stats
    # outputs); make would rerun the step on every build, as the output stays older than its
    # input, so for make the step ends by touching its outputs.
    set(touch_header "")
    set(touch_embedded "")
    if(NOT CMAKE_GENERATOR MATCHES "Ninja")
      set(touch_header COMMAND "${CMAKE_COMMAND}" -E touch_nocreate "${header}" "${stubs}")
      set(touch_embedded COMMAND "${CMAKE_COMMAND}" -E touch_nocreate "${embedded}")
    endif()
    file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${source}")

    add_custom_command(
      OUTPUT "${fatbin}"
      COMMAND "${CUBIND_NVCC_EXECUTABLE}" -fatbin ${gencode} ${includes} ${arg_COMPILE_OPTIONS}
              -MD -MF "${fatbin}.d" -MT "${fatbin}" -o "${fatbin}" "${source}"
      MAIN_DEPENDENCY "${source}"
      DEPFILE "${fatbin}.d"
      COMMENT "cubind: nvcc ${shown} -> ${target}/${stem}.fatbin (sm ${arg_ARCHS})"
      COMMAND_EXPAND_LISTS VERBATIM)

    # The fatbin's kernels are the ground truth: the stubs wait for nvcc.
    set(kernels_from --kernels-from "${fatbin}")
    set(kernels_from_file "${fatbin}")
    if(arg_EXPLICIT_KERNELS_ONLY)
      set(kernels_from "")
      set(kernels_from_file "")
    endif()
    add_custom_command(
      OUTPUT "${header}" "${stubs}"
      COMMAND "${gen}" ${includes} ${gen_options} --cuda-path "${cuda_path}"
              --module-name "${module}" -o "${out_dir}" --depfile "${header}.d"
              --cache-dir "${CMAKE_BINARY_DIR}/cubind-gen-cache" ${kernels_from} "${source}"
      ${touch_header}
      DEPENDS "${source}" "${gen}" ${kernels_from_file}
      DEPFILE "${header}.d"
      COMMENT "cubind: cubind-gen ${shown} -> ${target}/${stem}.cubind.h, .cubind.c"
      COMMAND_EXPAND_LISTS VERBATIM)

    add_custom_command(
      OUTPUT "${embedded}"
      COMMAND "${gen}" --embed-fatbin "${fatbin}" --module-name "${module}" -o "${out_dir}"
      ${touch_embedded}
      DEPENDS "${fatbin}" "${gen}"
      COMMENT "cubind: embedding ${target}/${stem}.fatbin -> ${target}/${module}.fatbin.c"
      VERBATIM)

    list(APPEND generated "${header}" "${stubs}" "${embedded}")
  endforeach()

  add_library(${target} STATIC ${generated})
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${out_dir}>")
  # A struct passed by value from a header: the generated header includes that header by its
  # path relative to the .cu's directory or to an INCLUDE_DIRECTORIES entry, so C callers need
  # those directories too.
  list(REMOVE_DUPLICATES source_dirs)
  foreach(dir IN LISTS arg_INCLUDE_DIRECTORIES source_dirs)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${dir}>")
  endforeach()
  target_link_libraries(${target} PUBLIC cubind::runtime)
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE C)
endfunction()

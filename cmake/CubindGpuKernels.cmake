# CubindGpuKernels.cmake: add_gpu_kernels(), which turns .cu files into a C library.
#
#   add_gpu_kernels(<target>
#     SOURCES <file.cu>...              the kernels (relative paths: to the current source dir;
#                                       a file a custom command of it makes: its binary dir)
#     [ARCHS <arch>...]                 machine code (SASS) for these, e.g. 80 90 (default below);
#                                       also 90-real (SASS), 90-virtual (PTX), all, all-major,
#                                       native (CMake's keywords, see "Architectures")
#     [PTX]                             also embed PTX for the highest ARCH, so newer GPUs can JIT it
#     [SEPARABLE]                       relocatable device code: kernels may call __device__
#                                       functions of the target's other .cu files (nvcc -rdc=true,
#                                       one device link); CMake's CUDA_SEPARABLE_COMPILATION
#                                       property (and CMAKE_CUDA_SEPARABLE_COMPILATION) does the
#                                       same, as does -rdc=true (-dc) among the nvcc options
#     [PREFIX <p>]                      put <p> before every generated C name: <p>doublify_launch
#     [EXPLICIT_KERNELS_ONLY]           bind only the kernels the source names (plain kernels and
#                                       explicit template instantiations), a fixed API; default:
#                                       every kernel nvcc emitted, implicit instantiations too
#     [INCLUDE_DIRECTORIES <dir>...]    -I for nvcc and cubind-gen (and for C callers)
#     [COMPILE_OPTIONS <option>...])    extra nvcc options (SHELL: and generator expressions
#                                       as in target_compile_options())
#
# Example (a whole CMakeLists.txt):
#   cmake_minimum_required(VERSION 3.20)
#   project(app LANGUAGES C)
#   find_package(cubind 0.2 REQUIRED)                # or add_subdirectory(cubind)
#   add_gpu_kernels(vec_kernels SOURCES vec.cu ARCHS 80 90)
#   add_executable(app main.c)
#   target_link_libraries(app PRIVATE vec_kernels)   # main.c: #include "vec.cubind.h"
#
# What nvcc is given, it is given the same way cubind-gen's parse is (cubind-gen --nvcc-options:
# the one place that picks the preprocessor options out of nvcc's command line), in this order:
# -std=c++NN of the target's CUDA_STANDARD (CMAKE_CUDA_STANDARD) or, higher, of the cuda_std_NN
# compile features of it and what it links, CMAKE_CUDA_FLAGS (else $CUDAFLAGS),
# CMAKE_CUDA_FLAGS_<CONFIG>, the target's INCLUDE_DIRECTORIES and COMPILE_DEFINITIONS
# (target_include_directories(), target_compile_definitions(), with generator expressions; the
# usage requirements of what it links too; $<COMPILE_LANGUAGE:CUDA> there is true for nvcc and
# cubind-gen, false for the target's C sources), the target's compile options that name CUDA
# (target_compile_options($<$<COMPILE_LANGUAGE:CUDA>:...>), those of what it links; options
# naming no language, -Wall, are the C sources'), COMPILE_OPTIONS, then the .cu's own
# INCLUDE_DIRECTORIES, COMPILE_DEFINITIONS and COMPILE_OPTIONS (set_source_files_properties(),
# also after the call, in the same directory). The include directories CMake
# makes system ones (IMPORTED targets', SYSTEM ones) come after the others, as -isystem for nvcc
# and -I for cubind-gen (whose parse binds no kernel of a system header). So
# `-DCMAKE_CUDA_FLAGS_DEBUG="-G -g"` gives a Debug build device debug information. nvcc runs
# through CMAKE_CUDA_COMPILER_LAUNCHER (the target's CUDA_COMPILER_LAUNCHER, e.g. ccache), and
# with CMAKE_EXPORT_COMPILE_COMMANDS the nvcc step of every .cu is added to
# compile_commands.json.
#
# Architectures, when ARCHS is not given, follow CMake: the target's CUDA_ARCHITECTURES
# property (initialized from CMAKE_CUDA_ARCHITECTURES), else the CUDAARCHS environment variable,
# with CMake's meaning: 90 = SASS + PTX, 90-real = SASS, 90-virtual = PTX, all / all-major =
# SASS for every (major) architecture nvcc knows + PTX of the newest major (as nvcc -arch=all),
# native = SASS for the GPUs of this machine (an error where there is none), OFF = nvcc's own
# default. Without any of these: SASS for CUBIND_DEFAULT_ARCHS. In ARCHS a plain number is SASS
# only (PTX on request).
#
# For each <stem>.cu, steps write into ${CMAKE_CURRENT_BINARY_DIR}/<target>/:
#   nvcc -fatbin                 <stem>.cu     -> <stem>.fatbin  (SASS for every arch [+ PTX])
#   cubind-gen --prepare, beside nvcc: the precompiled prelude the next step parses with, in
#                                <build>/cubind-gen-cache (stamp: <stem>.cubind-prepared)
#   cubind-gen --kernels-from <stem>.fatbin [--earlier-binary <earlier stem>.fatbin ...]
#                                <stem>.cu     -> <stem>.cubind.h + <stem>.cubind.c  (C stubs
#                                                 for every kernel in the fatbin's cubins: the
#                                                 ones the .cu and its headers name and the
#                                                 templates its host code instantiates by
#                                                 launching them; a header's kernel that an
#                                                 earlier .cu of SOURCES holds too is bound by
#                                                 that .cu), and <stem>.cubind.names (the C
#                                                 names, for the check)
#   cubind-gen --embed-fatbin    <stem>.fatbin -> <module>.fatbin.c  (the fatbin as a C array)
# (<module> is <PREFIX><stem> made a C identifier.) SEPARABLE instead compiles each .cu with
# nvcc -fatbin -rdc=true, device-links them all into <target>.fatbin, embeds that once, and gives
# each .cu the module <PREFIX><target>_<stem> loading that one fatbin.
# <target> is a static library of the generated .c files; whoever links it gets the generated
# headers' directory (<stem>.cubind.h, also as <target>/<stem>.cubind.h) and cubind::runtime.
# nvcc and cubind-gen write dependency files, so editing a .cu or a header it includes rebuilds
# only what that .cu produces. The outputs hold no paths or timestamps: same inputs, same bytes.
#
# C names: two kernels (or variables, or modules) that would get the same C name in one program
# are a build error naming both (cubind-gen --check-names over the .cubind.names files: of the
# target's .cu files, and of all add_gpu_kernels() targets linked into each executable or shared
# library of the build). PREFIX tells them apart.
#
# Cache variables (all optional):
#   CUBIND_DEFAULT_ARCHS    the ARCHS used when nothing above names any: 75 80 86 87 89 90 100
#                           110 120 (Turing to Blackwell, Jetson Orin and Thor included), less
#                           those this nvcc cannot target (nvcc 13 dropped everything before 75).
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
# Build folders configured by cubind 0.1 cached its default list themselves (the user had not
# set it): forget that copy, so that the documented default applies.
get_property(_cubind_help CACHE CUBIND_DEFAULT_ARCHS PROPERTY HELPSTRING)
if(_cubind_help STREQUAL "Architectures add_gpu_kernels() compiles for when given no ARCHS")
  unset(CUBIND_DEFAULT_ARCHS CACHE)
endif()

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

# The toolkit this nvcc belongs to, asked once per nvcc: its --dryrun prints TOP, the root it
# runs from. The nvcc on PATH may be a wrapper script or a symlink in a merged prefix
# (/usr/local/bin, /usr/bin, a conda env), two directories up from which lies no toolkit.
function(_cubind_nvcc_toolkit out)
  if(NOT "${_CUBIND_NVCC_TOOLKIT_OF}" STREQUAL "${CUBIND_NVCC_EXECUTABLE}")
    execute_process(COMMAND "${CUBIND_NVCC_EXECUTABLE}" --dryrun -x cu -c /dev/null -o /dev/null
                    OUTPUT_VARIABLE listed ERROR_VARIABLE listed RESULT_VARIABLE rc)
    if(listed MATCHES "#\\$ TOP=([^\r\n]*)")
      get_filename_component(root "${CMAKE_MATCH_1}" REALPATH)
    else()
      get_filename_component(root "${CUBIND_NVCC_EXECUTABLE}" REALPATH)
      get_filename_component(root "${root}" DIRECTORY)
      get_filename_component(root "${root}" DIRECTORY)
    endif()
    set(_CUBIND_NVCC_TOOLKIT "${root}" CACHE INTERNAL "the toolkit of CUBIND_NVCC_EXECUTABLE")
    set(_CUBIND_NVCC_TOOLKIT_OF "${CUBIND_NVCC_EXECUTABLE}" CACHE INTERNAL "")
  endif()
  set(${out} "${_CUBIND_NVCC_TOOLKIT}" PARENT_SCOPE)
endfunction()

# The sm_XX numbers this nvcc compiles for ("75;80;...;120"), asked once per nvcc; empty for an
# nvcc too old for --list-gpu-code (before CUDA 11), which then gets every list unfiltered.
function(_cubind_nvcc_codes out)
  if(NOT "${_CUBIND_NVCC_CODES_OF}" STREQUAL "${CUBIND_NVCC_EXECUTABLE}")
    execute_process(COMMAND "${CUBIND_NVCC_EXECUTABLE}" --list-gpu-code
                    OUTPUT_VARIABLE listed RESULT_VARIABLE rc ERROR_QUIET)
    set(codes "")
    if(rc EQUAL 0)
      string(REGEX MATCHALL "sm_[0-9]+[a-z]?" listed "${listed}")
      foreach(code IN LISTS listed)
        string(REPLACE "sm_" "" code "${code}")
        list(APPEND codes ${code})
      endforeach()
      list(REMOVE_DUPLICATES codes)
      list(SORT codes COMPARE NATURAL)
    endif()
    set(_CUBIND_NVCC_CODES "${codes}" CACHE INTERNAL "sm_XX numbers of CUBIND_NVCC_EXECUTABLE")
    set(_CUBIND_NVCC_CODES_OF "${CUBIND_NVCC_EXECUTABLE}" CACHE INTERNAL "")
  endif()
  set(${out} "${_CUBIND_NVCC_CODES}" PARENT_SCOPE)
endfunction()

# The compute capabilities of this machine's GPUs ("native"): CMake's own detection when the
# CUDA language is enabled, else nvidia-smi. A clear error without a GPU.
function(_cubind_native_archs caller out)
  set(found "")
  if(CMAKE_CUDA_ARCHITECTURES_NATIVE)
    string(REGEX REPLACE "-real|-virtual" "" found "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
  else()
    find_program(CUBIND_NVIDIA_SMI nvidia-smi)
    if(CUBIND_NVIDIA_SMI)
      execute_process(COMMAND "${CUBIND_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                      OUTPUT_VARIABLE listed RESULT_VARIABLE rc ERROR_QUIET)
      if(rc EQUAL 0)
        string(REGEX MATCHALL "[0-9]+\\.[0-9]+" listed "${listed}")
        foreach(capability IN LISTS listed)
          string(REPLACE "." "" capability "${capability}")
          list(APPEND found ${capability})
        endforeach()
      endif()
    endif()
  endif()
  list(REMOVE_DUPLICATES found)
  if(NOT found)
    message(FATAL_ERROR "${caller}: CUDA architecture 'native' needs a GPU when CMake configures "
                        "the build, and this machine has none (nvidia-smi lists no GPU). Name the "
                        "architectures instead, e.g. -DCMAKE_CUDA_ARCHITECTURES=90 or ARCHS 90.")
  endif()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# Turns architecture entries into the SASS (real) and PTX (virtual) lists. meaning CMAKE: a plain
# number is SASS + PTX (CMAKE_CUDA_ARCHITECTURES, CUDAARCHS); ARCHS: SASS only. origin names the
# entries' source in messages. *off is set for CMake's OFF (no architecture flags at all).
function(_cubind_parse_archs caller meaning origin entries real_out virtual_out off_out)
  set(real "")
  set(virtual "")
  set(is_off FALSE) # not `off`: if(off) would read CMake's constant OFF, never the variable
  _cubind_nvcc_codes(codes)
  foreach(entry IN LISTS entries)
    if(meaning STREQUAL "CMAKE" AND entry MATCHES "^(OFF|off|FALSE|NO|0)$")
      set(is_off TRUE)
    elseif(entry MATCHES "^(all|all-major|native)$")
      if(entry STREQUAL "native")
        _cubind_native_archs("${caller}" expanded)
      else()
        set(expanded "")
        list(GET codes 0 oldest)
        foreach(code IN LISTS codes)
          # all-major, as nvcc -arch=all-major: each major's first (sm_X0) and the oldest
          if(NOT code MATCHES "[a-z]$" AND (entry STREQUAL "all" OR code MATCHES "0$"
                                            OR code STREQUAL oldest))
            list(APPEND expanded ${code})
          endif()
        endforeach()
        if(NOT expanded)
          message(FATAL_ERROR "${caller}: '${entry}' needs nvcc --list-gpu-code (CUDA 11 or "
                              "newer); name the architectures instead")
        endif()
        if(meaning STREQUAL "CMAKE") # PTX of the newest major (sm_X0), as nvcc embeds it
          set(majors ${expanded})
          list(FILTER majors INCLUDE REGEX "0$")
          list(GET majors -1 newest)
          list(APPEND virtual ${newest})
        endif()
      endif()
      list(APPEND real ${expanded})
    elseif(entry MATCHES "^([0-9]+[a-z]?)(-real|-virtual)?$")
      set(number "${CMAKE_MATCH_1}")
      if(CMAKE_MATCH_2 STREQUAL "-virtual")
        list(APPEND virtual ${number})
      else()
        list(APPEND real ${number})
        if(meaning STREQUAL "CMAKE" AND NOT CMAKE_MATCH_2)
          list(APPEND virtual ${number})
        endif()
      endif()
    else()
      message(FATAL_ERROR "${caller}: ${origin} entry '${entry}' is not an architecture: write a "
                          "number such as 80, 90 or 90a (not sm_80), optionally with -real (SASS) "
                          "or -virtual (PTX), or one of all, all-major, native")
    endif()
  endforeach()
  foreach(list_name IN ITEMS real virtual)
    list(REMOVE_DUPLICATES ${list_name})
    list(SORT ${list_name} COMPARE NATURAL)
  endforeach()
  set(${real_out} "${real}" PARENT_SCOPE)
  set(${virtual_out} "${virtual}" PARENT_SCOPE)
  set(${off_out} ${is_off} PARENT_SCOPE)
endfunction()

# The architectures of a target (see "Architectures" above): nvcc's -gencode options into
# gencode_out, a description for messages into shown_out, the SASS list into real_out
# ("default" for CMake's OFF: nvcc's own default, which has SASS) and the PTX list into
# virtual_out.
function(_cubind_target_archs target caller gencode_out shown_out real_out virtual_out)
  get_target_property(archs ${target} CUBIND_ARCHS)
  get_target_property(ptx ${target} CUBIND_PTX)
  if(NOT archs)
    _cubind_fix_property(${target} CUDA_ARCHITECTURES)
  endif()
  get_target_property(cmake_archs ${target} CUDA_ARCHITECTURES)
  if(archs)
    _cubind_parse_archs("${caller}" ARCHS ARCHS "${archs}" real virtual arch_off)
    if(ptx)
      set(all ${real} ${virtual})
      list(SORT all COMPARE NATURAL)
      list(GET all -1 newest)
      list(APPEND virtual ${newest})
      list(REMOVE_DUPLICATES virtual)
    endif()
  elseif(NOT cmake_archs STREQUAL "cmake_archs-NOTFOUND" AND NOT cmake_archs STREQUAL "")
    _cubind_parse_archs("${caller}" CMAKE CUDA_ARCHITECTURES "${cmake_archs}" real virtual
                        arch_off)
  elseif(NOT "$ENV{CUDAARCHS}" STREQUAL "")
    _cubind_parse_archs("${caller}" CMAKE "CUDAARCHS (environment)" "$ENV{CUDAARCHS}"
                        real virtual arch_off)
  else()
    if(DEFINED CUBIND_DEFAULT_ARCHS)
      set(defaults ${CUBIND_DEFAULT_ARCHS})
    else()
      _cubind_nvcc_codes(codes)
      set(defaults "")
      foreach(arch IN ITEMS 75 80 86 87 89 90 100 110 120)
        if(NOT codes OR arch IN_LIST codes)
          list(APPEND defaults ${arch})
        endif()
      endforeach()
    endif()
    _cubind_parse_archs("${caller}" ARCHS CUBIND_DEFAULT_ARCHS "${defaults}" real virtual arch_off)
    if(ptx)
      list(GET real -1 newest)
      list(APPEND virtual ${newest})
    endif()
  endif()
  set(gencode "")
  foreach(arch IN LISTS real)
    list(APPEND gencode -gencode "arch=compute_${arch},code=sm_${arch}")
  endforeach()
  foreach(arch IN LISTS virtual)
    list(APPEND gencode -gencode "arch=compute_${arch},code=compute_${arch}")
  endforeach()
  if(arch_off)
    set(shown "nvcc's default architecture")
  else()
    list(JOIN real " " shown)
    set(shown "sm ${shown}")
    if(virtual)
      list(JOIN virtual " " ptx_shown)
      string(APPEND shown " + PTX ${ptx_shown}")
    endif()
  endif()
  if(NOT real AND NOT virtual AND NOT arch_off)
    message(FATAL_ERROR "${caller}: no CUDA architecture to compile for")
  endif()
  if(arch_off)
    set(real default)
  endif()
  set(${gencode_out} "${gencode}" PARENT_SCOPE)
  set(${shown_out} "${shown}" PARENT_SCOPE)
  set(${real_out} "${real}" PARENT_SCOPE)
  set(${virtual_out} "${virtual}" PARENT_SCOPE)
endfunction()

# A regular expression matching exactly `text`.
function(_cubind_regex_escape text out)
  string(REGEX REPLACE "([][+.*()^$?|\\\\{}])" "\\\\\\1" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# A path as a Makefile-style dependency file spells it (nvcc writes -MT's text as given). A
# configuration's folder ($<CONFIG>) stays a generator expression, for the command to evaluate.
function(_cubind_depfile_escape path out)
  string(REPLACE "$<CONFIG>" "@CUBIND_CONFIG@" path "${path}")
  string(REPLACE "\\" "\\\\" path "${path}")
  string(REPLACE " " "\\ " path "${path}")
  string(REPLACE "#" "\\#" path "${path}")
  string(REPLACE "$" "$$" path "${path}")
  string(REPLACE "@CUBIND_CONFIG@" "$<CONFIG>" path "${path}")
  set(${out} "${path}" PARENT_SCOPE)
endfunction()

# Whether a list of nvcc options asks for relocatable device code (nvcc takes the last of
# -rdc=true/false, --relocatable-device-code[=]true/false; -dc, --device-c imply true).
function(_cubind_asks_rdc options out)
  set(asks FALSE)
  set(previous "")
  foreach(option IN LISTS options)
    if(previous MATCHES "^(-rdc|--relocatable-device-code)$")
      set(option "${previous}=${option}")
    endif()
    if(option MATCHES "^(-rdc|--relocatable-device-code)=(true|false)$")
      set(asks ${CMAKE_MATCH_2})
    elseif(option MATCHES "^(-dc|--device-c)$")
      set(asks TRUE)
    endif()
    set(previous "${option}")
  endforeach()
  set(${out} ${asks} PARENT_SCOPE)
endfunction()

# The nvcc options of a target, as a list (generator expressions included) for nvcc and one for
# cubind-gen --nvcc-options that differs only in how system include directories are given (see
# the header comment for the order); rdc_out: whether they ask for relocatable device code (in
# any configuration).
function(_cubind_nvcc_flags target out gen_out rdc_out)
  if(DEFINED CMAKE_CUDA_FLAGS)
    separate_arguments(flags UNIX_COMMAND "${CMAKE_CUDA_FLAGS}")
  else()
    separate_arguments(flags UNIX_COMMAND "$ENV{CUDAFLAGS}")
  endif()
  get_target_property(options ${target} CUBIND_COMPILE_OPTIONS)
  if(NOT options)
    set(options "")
  endif()
  _cubind_asks_rdc("${flags};${options}" relocatable)
  # -std=c++NN as CMake gives nvcc for CUDA sources: the highest of the target's CUDA_STANDARD
  # (initialized from CMAKE_CUDA_STANDARD) and the cuda_std_NN compile features of it and what
  # it links; first, so that a -std among the options wins (nvcc takes the last, and so does
  # cubind-gen)
  set(standard "$<TARGET_PROPERTY:${target},CUDA_STANDARD>")
  set(features "$<TARGET_PROPERTY:${target},COMPILE_FEATURES>")
  set(highest "${standard}") # (a CUDA_STANDARD no feature names, as given)
  foreach(level IN ITEMS 11 14 17 20 23 26) # each test wraps the lower ones
    set(named "$<OR:$<IN_LIST:cuda_std_${level},${features}>,$<STREQUAL:${standard},${level}>>")
    set(highest "$<IF:${named},${level},${highest}>")
  endforeach()
  list(PREPEND flags "$<$<BOOL:${highest}>:-std=c++${highest}>")
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config) # (a single-configuration generator ignores CMAKE_CONFIGURATION_TYPES)
    set(configs ${CMAKE_CONFIGURATION_TYPES})
  else()
    set(configs ${CMAKE_BUILD_TYPE})
  endif()
  foreach(config IN LISTS configs)
    string(TOUPPER "${config}" upper)
    if(CMAKE_CUDA_FLAGS_${upper})
      # one list element: its ';' and '>' written as generator expressions, split when run
      separate_arguments(config_flags UNIX_COMMAND "${CMAKE_CUDA_FLAGS_${upper}}")
      _cubind_asks_rdc("${flags};${config_flags};${options}" asks)
      if(asks)
        set(relocatable TRUE)
      endif()
      string(REPLACE ">" "$<ANGLE-R>" config_flags "${config_flags}")
      string(REPLACE ";" "$<SEMICOLON>" config_flags "${config_flags}")
      list(APPEND flags "$<$<CONFIG:${config}>:${config_flags}>")
    endif()
  endforeach()
  # The toolkit's and the compilers' own include directories stay system ones: as -I they
  # would turn system headers into user headers (and break #include_next).
  set(system_dirs ${CUDAToolkit_INCLUDE_DIRS} ${CMAKE_C_IMPLICIT_INCLUDE_DIRECTORIES}
                  ${CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES})
  set(exclude "")
  foreach(dir IN LISTS system_dirs)
    get_filename_component(real "${dir}" REALPATH)
    foreach(spelling IN ITEMS "${dir}" "${real}")
      _cubind_regex_escape("${spelling}" escaped)
      list(APPEND exclude "${escaped}")
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES exclude)
  list(JOIN exclude "|" exclude)
  string(REPLACE "," "$<COMMA>" exclude "${exclude}")
  string(REPLACE ">" "$<ANGLE-R>" exclude "${exclude}")
  set(dirs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  if(exclude)
    set(dirs "$<FILTER:${dirs},EXCLUDE,^(${exclude})/?$>")
  endif()
  # The system ones of what it links (_cubind_system_include_dirs) go to nvcc as -isystem, as
  # CMake's CUDA compile gives them: warnings in those headers do not fail a -Werror build.
  # cubind-gen gets them as -I after the others, the order nvcc searches them in: its parse
  # takes a system header for the toolkit's (its kernels listed, not bound; its structs not
  # passed by value), and a package's header is the user's there.
  set(system "^($<TARGET_PROPERTY:${target},_CUBIND_SYSTEM_INCLUDE_REGEX>)/?$")
  set(user_dirs "$<FILTER:${dirs},EXCLUDE,${system}>")
  set(system_dirs "$<FILTER:${dirs},INCLUDE,${system}>")
  list(APPEND flags "$<$<BOOL:${user_dirs}>:-I$<JOIN:${user_dirs},$<SEMICOLON>-I>>")
  set(gen_flags ${flags})
  set(isystem "-isystem$<SEMICOLON>")
  list(APPEND flags
       "$<$<BOOL:${system_dirs}>:${isystem}$<JOIN:${system_dirs},$<SEMICOLON>${isystem}>>")
  list(APPEND gen_flags "$<$<BOOL:${system_dirs}>:-I$<JOIN:${system_dirs},$<SEMICOLON>-I>>")
  set(defines "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  # the target's and its links' compile options that name CUDA (_cubind_compile_language_as_cuda
  # keeps the others out of this read), before COMPILE_OPTIONS, which is nvcc's alone
  set(target_options "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>")
  foreach(list_name IN ITEMS flags gen_flags)
    list(APPEND ${list_name} "$<$<BOOL:${defines}>:-D$<JOIN:${defines},$<SEMICOLON>-D>>"
                             "${target_options}" ${options})
  endforeach()
  set(${out} "${flags}" PARENT_SCOPE)
  set(${gen_out} "${gen_flags}" PARENT_SCOPE)
  set(${rdc_out} ${relocatable} PARENT_SCOPE)
endfunction()

# How many items of the list `value` (compile options) each option takes, in order: one, or
# those of a generator expression holding a list, which CMake split at its ';' where the
# argument was unquoted ("$<$<CONFIG:Debug>:-G;-g>"); an unclosed one takes the rest (CMake
# reports it).
function(_cubind_option_lengths value out)
  set(lengths "")
  set(length 0)
  set(pending "")
  foreach(item IN LISTS value)
    string(APPEND pending "${item}")
    math(EXPR length "${length} + 1")
    string(REGEX MATCHALL "\\$<" opened "${pending}")
    string(REGEX MATCHALL ">" closed "${pending}")
    list(LENGTH opened opened)
    list(LENGTH closed closed)
    if(NOT opened GREATER closed)
      list(APPEND lengths ${length})
      set(length 0)
      set(pending "")
    endif()
  endforeach()
  if(length GREATER 0)
    list(APPEND lengths ${length})
  endif()
  set(${out} "${lengths}" PARENT_SCOPE)
endfunction()

# COMPILE_OPTIONS as target_compile_options() reads them, into a list whose every item is one
# option or one generator expression: a SHELL: item split as a shell splits it (its repeated
# options kept); a generator expression holding a list is one item (_cubind_option_lengths),
# its ';' written $<SEMICOLON> so that lists keep it whole and the steps' COMMAND_EXPAND_LISTS
# splits its value.
function(_cubind_compile_options options out)
  set(items "")
  set(start 0)
  _cubind_option_lengths("${options}" lengths)
  foreach(length IN LISTS lengths)
    list(SUBLIST options ${start} ${length} pieces)
    math(EXPR start "${start} + ${length}")
    list(JOIN pieces "$<SEMICOLON>" option)
    if(option MATCHES "^SHELL:(.*)$")
      separate_arguments(pieces UNIX_COMMAND "${CMAKE_MATCH_1}")
      list(APPEND items ${pieces})
    else()
      list(APPEND items "${option}")
    endif()
  endforeach()
  set(${out} "${items}" PARENT_SCOPE)
endfunction()

function(add_gpu_kernels target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "PTX;EXPLICIT_KERNELS_ONLY;SEPARABLE" "PREFIX"
                        "SOURCES;ARCHS;INCLUDE_DIRECTORIES;COMPILE_OPTIONS")
  set(caller "add_gpu_kernels(${target})")
  set(usage "Expected: add_gpu_kernels(<target> SOURCES <file.cu>... [ARCHS <arch>...] [PTX] "
            "[SEPARABLE] [PREFIX <prefix>] [EXPLICIT_KERNELS_ONLY] "
            "[INCLUDE_DIRECTORIES <dir>...] [COMPILE_OPTIONS <option>...])")
  string(CONCAT usage ${usage})
  # A misspelt keyword after a list (SOURCES k.cu ARCH 90) lands in that list: upper-case
  # words there are taken for keywords too; in COMPILE_OPTIONS not after an option that takes
  # a value (-D USE_DOUBLE, --define-macro NDEBUG).
  set(unknown ${arg_UNPARSED_ARGUMENTS})
  set(previous "")
  foreach(value IN LISTS arg_SOURCES arg_ARCHS arg_INCLUDE_DIRECTORIES arg_COMPILE_OPTIONS)
    if(value MATCHES "^[A-Z][A-Z_]+$" AND NOT
       (value IN_LIST arg_COMPILE_OPTIONS AND previous MATCHES "^-(-[a-z-]+|[A-Za-z]+)$"))
      list(APPEND unknown ${value})
    endif()
    set(previous "${value}")
  endforeach()
  if(unknown)
    message(FATAL_ERROR "${caller}: unknown argument(s): ${unknown}. ${usage}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "${caller}: no SOURCES given")
  endif()
  foreach(keyword IN ITEMS ARCHS INCLUDE_DIRECTORIES COMPILE_OPTIONS PREFIX)
    if(keyword IN_LIST arg_KEYWORDS_MISSING_VALUES)
      message(FATAL_ERROR "${caller}: ${keyword} is given without values")
    endif()
  endforeach()
  if(DEFINED arg_PREFIX AND NOT arg_PREFIX MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${caller}: PREFIX '${arg_PREFIX}' is not the start of a C identifier "
                        "(letters, digits and '_', no digit first)")
  endif()

  _cubind_compile_options("${arg_COMPILE_OPTIONS}" compile_options)

  _cubind_find_nvcc("${caller}")
  if(arg_ARCHS) # entries are checked now, for an early error; resolved at the end (see below)
    _cubind_parse_archs("${caller}" ARCHS ARCHS "${arg_ARCHS}" real virtual arch_off)
  endif()
  # cubind-gen: a cross build's host tool, this build's target, or the installed one.
  if(CUBIND_GEN_EXECUTABLE)
    set(gen "${CUBIND_GEN_EXECUTABLE}")
  elseif(TARGET cubind-gen)
    set(gen "$<TARGET_FILE:cubind-gen>")
  elseif(TARGET cubind::gen)
    # its path: the top-level directory's name checks run it too, where the imported target of
    # a subdirectory's find_package(cubind) is not visible
    get_target_property(gen cubind::gen LOCATION)
  else()
    message(FATAL_ERROR "${caller}: no cubind-gen: build it (CUBIND_BUILD_GENERATOR=ON), "
      "find_package(cubind), or pass -DCUBIND_GEN_EXECUTABLE=/path/to/cubind-gen")
  endif()
  if(NOT TARGET cubind::runtime)
    message(FATAL_ERROR "${caller}: no cubind::runtime target: add_subdirectory(cubind) or "
                        "find_package(cubind) first")
  endif()

  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  file(MAKE_DIRECTORY "${out_dir}")
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config)
    # Ninja Multi-Config: each configuration's flags and definitions make its own fatbin and
    # stubs (one folder for all would hand Release the kernels of the last Debug build)
    set(out_dir "${out_dir}/$<CONFIG>")
    if(CMAKE_CROSS_CONFIGS)
      # measured with CMake 3.25: its generate step crashes on such per-configuration depfiles
      message(FATAL_ERROR "${caller}: CMAKE_CROSS_CONFIGS is not supported (each "
                          "configuration's nvcc step needs a dependency file of its own): build "
                          "one configuration at a time (cmake --build <dir> --config <config>)")
    endif()
  endif()
  # The library exists at once (so that it can be linked and given properties); its build
  # steps are made at the end of this directory, when properties set after this call (such as
  # CUDA_SEPARABLE_COMPILATION or CUDA_ARCHITECTURES) are known (_cubind_check_fixed_properties
  # refuses a change made later, from another directory).
  add_library(${target} STATIC)
  set_target_properties(${target} PROPERTIES
    LINKER_LANGUAGE C
    CUBIND_SOURCES "${arg_SOURCES}"
    CUBIND_ARCHS "${arg_ARCHS}"
    CUBIND_PTX "${arg_PTX}"
    CUBIND_PREFIX "${arg_PREFIX}"
    CUBIND_SEPARABLE_OPTION "${arg_SEPARABLE}"
    CUBIND_EXPLICIT_KERNELS_ONLY "${arg_EXPLICIT_KERNELS_ONLY}"
    CUBIND_COMPILE_OPTIONS "${compile_options}"
    CUBIND_GEN "${gen}"
    CUBIND_OUT_DIR "${out_dir}")
  target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${out_dir}>")
  foreach(dir IN LISTS arg_INCLUDE_DIRECTORIES)
    get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${dir}>")
  endforeach()
  target_link_libraries(${target} PUBLIC cubind::runtime)

  # What the end of the top-level directory needs (it may run before this target's steps; a
  # file given twice is one, two files of one name are the steps' configure error).
  set(names_files "")
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(stem "${source}" NAME_WLE)
    list(APPEND names_files "${out_dir}/${stem}.cubind.names")
  endforeach()
  list(REMOVE_DUPLICATES names_files)
  set_target_properties(${target} PROPERTIES CUBIND_NAMES_FILES "${names_files}")
  if(CMAKE_EXPORT_COMPILE_COMMANDS AND CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
    set_property(GLOBAL APPEND PROPERTY _CUBIND_COMPILE_COMMAND_FRAGMENTS
                 "${out_dir}/cubind-compile-commands.cmake")
  endif()
  set_property(GLOBAL APPEND PROPERTY CUBIND_KERNEL_TARGETS ${target})
  # (a deferred call's arguments are evaluated when it runs: the name goes in as text now)
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _cubind_add_build_steps [==[${target}]==])")
  get_property(scheduled GLOBAL PROPERTY _CUBIND_PROGRAM_CHECKS_SCHEDULED)
  if(NOT scheduled)
    set_property(GLOBAL PROPERTY _CUBIND_PROGRAM_CHECKS_SCHEDULED TRUE)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _cubind_finish_build)
  endif()
endfunction()

# The .cu's own compile properties (set_source_files_properties: INCLUDE_DIRECTORIES,
# COMPILE_DEFINITIONS, COMPILE_OPTIONS), as CMake gives them to a CUDA source's compile after
# the target's: nvcc and cubind-gen see them alike. Read when the steps are made, at the end of
# the directory, so properties set after add_gpu_kernels() count too.
function(_cubind_source_flags source out)
  set(flags "")
  get_source_file_property(dirs "${source}" INCLUDE_DIRECTORIES)
  if(dirs)
    foreach(dir IN LISTS dirs)
      get_filename_component(dir "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      list(APPEND flags "-I${dir}")
    endforeach()
  endif()
  get_source_file_property(defines "${source}" COMPILE_DEFINITIONS)
  if(defines)
    foreach(define IN LISTS defines)
      list(APPEND flags "-D${define}")
    endforeach()
  endif()
  get_source_file_property(options "${source}" COMPILE_OPTIONS)
  if(options)
    _cubind_compile_options("${options}" options) # SHELL: split, as in a compile line
    list(APPEND flags ${options})
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

# A source path of the current directory as CMake resolves one: relative to the source
# directory, unless no such file exists there and the binary directory's is made by the build
# (a relative add_custom_command(OUTPUT gen.cu) writes there).
function(_cubind_source_path path out)
  get_filename_component(resolved "${path}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT IS_ABSOLUTE "${path}" AND NOT EXISTS "${resolved}")
    get_filename_component(made "${path}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    get_source_file_property(generated "${made}" GENERATED)
    if(generated)
      set(resolved "${made}")
    endif()
  endif()
  set(${out} "${resolved}" PARENT_SCOPE)
endfunction()

# $<COMPILE_LANGUAGE:CUDA> (or a list naming CUDA) and $<COMPILE_LANG_AND_ID:CUDA,...NVIDIA...>
# in the compile definitions, include directories and compile options of a kernel target, or
# in the usage requirements of what it links, are for nvcc and cubind-gen. Their steps read
# those through $<TARGET_PROPERTY:...>, which CMake evaluates with no language, so such a test
# gave 0 there (a define kept off the C stubs reached no CUDA either); file(GENERATE) evaluates
# only enabled languages, and CUDA need not be one. Each such test is written as
# $<OR:$<NOT:$<BOOL:$<COMPILE_LANGUAGE>>>,test>: also true where there is no language, which
# only such property reads see; every compile (the C stubs: C) keeps its language's meaning.
# Compile options are also written so that the steps read CUDA's only (_cubind_options_for_steps).
# Idempotent: run at the end of the kernel's directory (imported targets visible there only)
# and again at the end of the top-level one (links and properties added since).
function(_cubind_compile_language_as_cuda target)
  set(no_language "$<OR:$<NOT:$<BOOL:$<COMPILE_LANGUAGE>>>,")
  _cubind_regex_escape("${no_language}" wrapped)
  set(test "\\$<(COMPILE_LANGUAGE:([^<>]*,)?CUDA|COMPILE_LANG_AND_ID:CUDA,([^<>]*,)?NVIDIA)")
  string(APPEND test "(,[^<>]*)?>")
  _cubind_linked_targets(${target} linked)
  foreach(current IN LISTS linked)
    set(properties INTERFACE_COMPILE_DEFINITIONS INTERFACE_INCLUDE_DIRECTORIES
                   INTERFACE_COMPILE_OPTIONS)
    if(current STREQUAL target)
      list(APPEND properties COMPILE_DEFINITIONS INCLUDE_DIRECTORIES COMPILE_OPTIONS)
    endif()
    foreach(property IN LISTS properties)
      get_property(value TARGET ${current} PROPERTY ${property})
      string(REGEX REPLACE "${wrapped}(${test})>" "\\1" written "${value}")
      string(REGEX REPLACE "${test}" "${no_language}\\0>" written "${written}")
      if(property MATCHES "COMPILE_OPTIONS$")
        _cubind_options_for_steps("${written}" written)
      endif()
      if(NOT written STREQUAL value)
        set_property(TARGET ${current} PROPERTY ${property} "${written}")
      endif()
    endforeach()
  endforeach()
endfunction()

# A COMPILE_OPTIONS value (its CUDA tests written as above), written so that the steps' read,
# with no language, gives what a CUDA compile would, and every compile what it gave before. An
# option that names no language is C's (-Wall, -fPIC: nvcc rejects them): it becomes
# $<$<BOOL:$<COMPILE_LANGUAGE>>:option>, absent from the steps. In one that names a language,
# "SHELL:-Xcompiler -DX" (which CMake splits in compiles only) becomes
# $<$<BOOL:$<COMPILE_LANGUAGE>>:SHELL:-Xcompiler -DX>$<$<NOT:...>:-Xcompiler;-DX>. An option is
# one list item or one generator expression (its pieces joined again: "$<$<CONFIG:Debug>:-G;-g>").
# Idempotent: an earlier SHELL: rewrite is undone first, a wrapped option is kept.
function(_cubind_options_for_steps value out)
  set(compiles "$<$<BOOL:$<COMPILE_LANGUAGE>>:")
  set(steps "$<$<NOT:$<BOOL:$<COMPILE_LANGUAGE>>>:")
  _cubind_regex_escape("${compiles}" compiles_regex)
  _cubind_regex_escape("${steps}" steps_regex)
  string(REGEX REPLACE "${compiles_regex}(SHELL:[^;<>$]*)>${steps_regex}[^<>$]*>" "\\1"
         value "${value}")
  set(written "")
  set(separator "")
  set(start 0)
  _cubind_option_lengths("${value}" lengths)
  foreach(length IN LISTS lengths)
    list(SUBLIST value ${start} ${length} pieces)
    math(EXPR start "${start} + ${length}")
    list(JOIN pieces ";" pending) # one option, as the property holds it
    string(FIND "${pending}" "${compiles}" at)
    if(pending MATCHES "\\$<COMPILE_LANG(UAGE|_AND_ID):")
      set(rest "${pending}") # each SHELL: item, the last first
      set(pending "")
      while(rest MATCHES "^(.*)SHELL:([^;<>$]*)([;>].*)?$")
        set(before "${CMAKE_MATCH_1}")
        set(shell "${CMAKE_MATCH_2}")
        set(after "${CMAKE_MATCH_3}")
        separate_arguments(pieces UNIX_COMMAND "${shell}")
        set(pending "${compiles}SHELL:${shell}>${steps}${pieces}>${after}${pending}")
        set(rest "${before}")
      endwhile()
      set(pending "${rest}${pending}")
    elseif(NOT pending STREQUAL "" AND NOT at EQUAL 0) # (at 0: wrapped by an earlier run)
      set(pending "${compiles}${pending}>")
    endif()
    string(APPEND written "${separator}${pending}")
    set(separator ";")
  endforeach()
  set(${out} "${written}" PARENT_SCOPE)
endfunction()

# The include directories that CMake makes system ones (-isystem) for a CUDA compile of `target`:
# INTERFACE_SYSTEM_INCLUDE_DIRECTORIES of what it links (itself included), and the
# INTERFACE_INCLUDE_DIRECTORIES of the IMPORTED targets among those (unless their SYSTEM is OFF,
# IMPORTED_NO_SYSTEM, or the target's NO_SYSTEM_FROM_IMPORTED) and of SYSTEM ones (CMake 3.25:
# add_subdirectory(SYSTEM), FetchContent's SYSTEM). Entries are plain paths and
# $<BUILD_INTERFACE:path>; other generator expressions stay -I. Kept as a regular expression in
# the property _CUBIND_SYSTEM_INCLUDE_REGEX, which the steps read when CMake generates. Adds to
# what it found before: run at the end of the kernel's directory (imported targets visible there
# only) and again at the end of the top-level one (links added since).
function(_cubind_system_include_dirs target)
  get_target_property(no_system_from_imported ${target} NO_SYSTEM_FROM_IMPORTED)
  get_property(found TARGET ${target} PROPERTY _CUBIND_SYSTEM_INCLUDE_DIRS)
  _cubind_linked_targets(${target} linked)
  foreach(current IN LISTS linked)
    set(properties INTERFACE_SYSTEM_INCLUDE_DIRECTORIES)
    get_property(system_set TARGET ${current} PROPERTY SYSTEM SET)
    get_target_property(system ${current} SYSTEM)
    get_target_property(imported ${current} IMPORTED)
    get_target_property(no_system ${current} IMPORTED_NO_SYSTEM)
    if(imported AND NOT system_set) # (CMake before 3.25: no SYSTEM, imported ones are system)
      set(system TRUE)
    endif()
    if(NOT current STREQUAL target AND system
       AND NOT (imported AND (no_system OR no_system_from_imported)))
      list(APPEND properties INTERFACE_INCLUDE_DIRECTORIES)
    endif()
    foreach(property IN LISTS properties)
      get_property(value TARGET ${current} PROPERTY ${property})
      string(REGEX REPLACE "\\$<BUILD_INTERFACE:([^<>]*)>" "\\1" value "${value}")
      string(REGEX REPLACE "\\$<INSTALL_INTERFACE:[^<>]*>" "" value "${value}")
      foreach(dir IN LISTS value)
        if(NOT dir MATCHES "[$<>]" AND IS_ABSOLUTE "${dir}")
          string(REGEX REPLACE "(.)/+$" "\\1" dir "${dir}")
          list(APPEND found "${dir}")
        endif()
      endforeach()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES found)
  set(regex "")
  foreach(dir IN LISTS found)
    _cubind_regex_escape("${dir}" escaped)
    list(APPEND regex "${escaped}")
  endforeach()
  list(JOIN regex "|" regex)
  set_target_properties(${target} PROPERTIES _CUBIND_SYSTEM_INCLUDE_DIRS "${found}"
                                             _CUBIND_SYSTEM_INCLUDE_REGEX "${regex}")
endfunction()

# Records that the build steps of `target` are made from its `property` as it is now.
function(_cubind_fix_property target property)
  get_property(value TARGET ${target} PROPERTY ${property})
  set_property(TARGET ${target} APPEND PROPERTY _CUBIND_FIXED_PROPERTIES ${property})
  set_property(TARGET ${target} PROPERTY _CUBIND_FIXED_${property} "${value}")
endfunction()

# The steps are made at the end of the target's directory (custom commands belong to it): a
# property they were made from that changed later (set_target_properties() in a parent
# directory after add_subdirectory()) would be silently ignored, so it is an error instead.
function(_cubind_check_fixed_properties target)
  get_property(properties TARGET ${target} PROPERTY _CUBIND_FIXED_PROPERTIES)
  get_property(dir TARGET ${target} PROPERTY SOURCE_DIR)
  foreach(property IN LISTS properties)
    get_property(value TARGET ${target} PROPERTY ${property})
    get_property(fixed TARGET ${target} PROPERTY _CUBIND_FIXED_${property})
    if(NOT "${value}" STREQUAL "${fixed}")
      set(fixed_shown "'${fixed}'")
      if(fixed STREQUAL "")
        set(fixed_shown "it unset")
      endif()
      message(FATAL_ERROR "add_gpu_kernels(${target}): ${property} was set to '${value}' after "
                          "the end of the target's directory (${dir}), where its build steps "
                          "were made with ${fixed_shown}: set it in that directory")
    endif()
  endforeach()
endfunction()

# The build steps of one add_gpu_kernels() target (deferred to the end of its directory, so
# that a custom command declared after the call makes its relative SOURCES as CMake's own).
function(_cubind_add_build_steps target)
  set(caller "add_gpu_kernels(${target})")
  # A .cu added with target_sources() would be compiled as a plain object (CUDA enabled) or
  # left out (C only), its kernels bound by no stub: only SOURCES are bound. Headers given so
  # (for an IDE) stay as CMake takes them.
  get_target_property(added ${target} SOURCES)
  foreach(source IN LISTS added)
    if(source MATCHES "\\.cu$" AND NOT source MATCHES "^\\$<")
      message(FATAL_ERROR "${caller}: ${source} was added to the target after the call "
                          "(target_sources()): only the SOURCES of add_gpu_kernels() get "
                          "stubs; list it there")
    endif()
  endforeach()
  get_target_property(given_sources ${target} CUBIND_SOURCES)
  set(sources "")
  set(source_dirs "")
  foreach(source IN LISTS given_sources)
    _cubind_source_path("${source}" source)
    list(APPEND sources "${source}")
    get_filename_component(dir "${source}" DIRECTORY)
    list(APPEND source_dirs "${dir}")
  endforeach()
  # A file given twice (k.cu and its full path, a GLOB and a name) is one source, as
  # add_library() takes it; two files whose outputs share a name would overwrite each other.
  list(REMOVE_DUPLICATES sources)
  set(modules "")
  foreach(source IN LISTS sources)
    # NAME_WLE: only the last extension goes, as cubind-gen names its outputs (a.b.cu -> a.b).
    get_filename_component(stem "${source}" NAME_WLE)
    string(MAKE_C_IDENTIFIER "${stem}" module)
    if(module IN_LIST modules)
      message(FATAL_ERROR "${caller}: two SOURCES give the module name '${module}' "
                          "(${source}); rename one")
    endif()
    list(APPEND modules ${module})
  endforeach()
  # A struct passed by value from a header: the generated header includes that header by its
  # path relative to the .cu's directory or to an INCLUDE_DIRECTORIES entry, so C callers need
  # those directories too (nvcc and cubind-gen get them from the same property).
  list(REMOVE_DUPLICATES source_dirs)
  foreach(dir IN LISTS source_dirs)
    target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${dir}>")
  endforeach()
  get_target_property(prefix ${target} CUBIND_PREFIX)
  get_target_property(gen ${target} CUBIND_GEN)
  get_target_property(out_dir ${target} CUBIND_OUT_DIR)
  get_target_property(explicit_only ${target} CUBIND_EXPLICIT_KERNELS_ONLY)
  get_target_property(separable ${target} CUBIND_SEPARABLE_OPTION)
  # Relocatable device code asked for among the nvcc options (CMAKE_CUDA_FLAGS -rdc=true) means
  # SEPARABLE: compiled alone, each .cu's relocatable code would never be device-linked, and a
  # kernel calling another .cu's __device__ function would fail to load at run time.
  _cubind_nvcc_flags(${target} nvcc_flags gen_flags flags_rdc)
  if(flags_rdc)
    set(separable TRUE)
  elseif(NOT separable)
    _cubind_fix_property(${target} CUDA_SEPARABLE_COMPILATION)
    get_target_property(separable ${target} CUDA_SEPARABLE_COMPILATION)
  endif()
  if(NOT prefix)
    set(prefix "")
  endif()
  _cubind_compile_language_as_cuda(${target})
  _cubind_system_include_dirs(${target})
  _cubind_target_archs(${target} "${caller}" gencode archs_shown real virtual)
  if(separable AND NOT real)
    message(FATAL_ERROR "${caller}: SEPARABLE needs machine code (SASS) for at least one "
                        "architecture: the device link drops PTX (${archs_shown})")
  endif()
  set(dlink_shown "${archs_shown}")
  if(separable AND virtual)
    # what the program runs on: the device link keeps the SASS alone
    list(JOIN real " " dlink_shown)
    set(dlink_shown "sm ${dlink_shown}")
    list(JOIN virtual " " ptx_shown)
    message(WARNING "${caller}: SEPARABLE: the device link keeps machine code only, so the "
                    "PTX asked for (${ptx_shown}) is dropped and the program runs on "
                    "${dlink_shown} alone, with no code for newer GPUs to compile at load")
  endif()
  if(NOT real AND NOT explicit_only)
    # PTX alone (90-virtual: the driver compiles it at load): the fatbin holds no cubin whose
    # kernels and layouts cubind-gen could read, so the stubs are the source's kernels
    message(STATUS "${caller}: PTX only (${archs_shown}): the kernels and explicit "
                   "instantiations of the sources are bound, as with EXPLICIT_KERNELS_ONLY "
                   "(template instances only host code launches need SASS for one architecture)")
    set(explicit_only TRUE)
  endif()
  if(CMAKE_CUDA_HOST_COMPILER)
    list(APPEND nvcc_flags -ccbin "${CMAKE_CUDA_HOST_COMPILER}")
    list(APPEND gen_flags -ccbin "${CMAKE_CUDA_HOST_COMPILER}")
  endif()
  _cubind_fix_property(${target} CUDA_COMPILER_LAUNCHER)
  get_target_property(launcher ${target} CUDA_COMPILER_LAUNCHER)
  if(NOT launcher)
    set(launcher "")
  endif()
  set(nvcc ${launcher} "${CUBIND_NVCC_EXECUTABLE}")
  _cubind_nvcc_toolkit(cuda_path)
  string(MAKE_C_IDENTIFIER "${target}" image)
  if(separable)
    set(rdc -rdc=true)
    # every module registers a unique name; so does the one fatbin
    _cubind_claim_name("${caller}" "fatbin '${prefix}${image}'" "${prefix}${image}")
  else()
    set(rdc "")
  endif()

  # cubind-gen leaves an output that would not change untouched. Ninja notices (it re-stats
  # outputs); make would rerun the step on every build, as the output stays older than its
  # input, so for make the step ends by touching its outputs.
  set(make_touch FALSE)
  if(NOT CMAKE_GENERATOR MATCHES "Ninja")
    set(make_touch TRUE)
  endif()
  # A configuration's folder (multi-configuration generators) is made by the steps that write
  # into it first: CMake makes no folder whose path holds a generator expression.
  set(make_out_dir "")
  if(out_dir MATCHES "\\$<")
    set(make_out_dir COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}")
  endif()

  # Files the build makes that the target lists as sources (target_sources() of a header that
  # an add_custom_command writes: CMake's usual way to order a generated header) are made before
  # nvcc and cubind-gen read them; the .cu files' depfiles only tell what a build already read.
  get_target_property(listed ${target} SOURCES)
  set(made_inputs "")
  foreach(file IN LISTS listed)
    if(NOT file MATCHES "\\$<")
      _cubind_source_path("${file}" file)
      get_source_file_property(made "${file}" GENERATED)
      if(made)
        list(APPEND made_inputs "${file}")
      endif()
    endif()
  endforeach()

  set(generated "")
  set(names_files "")
  set(fatbins "")
  set(compile_commands "")
  foreach(source IN LISTS sources)
    # (the .cu files are no sources of the library: nothing else would check them this early)
    if(source MATCHES "\\$<")
      message(FATAL_ERROR "${caller}: SOURCES holds a generator expression ('${source}'): each "
                          ".cu must be known when CMake configures (its stubs' names come from "
                          "it); choose the files with if() instead")
    endif()
    get_filename_component(name "${source}" NAME)
    if(name MATCHES "#")
      message(FATAL_ERROR "${caller}: SOURCES file '${source}' has a '#' in its name, which "
                          "CMake refuses in the name of a build output (its fatbin and stubs "
                          "are named after it): rename the file")
    endif()
    get_source_file_property(generated_source "${source}" GENERATED)
    if(NOT EXISTS "${source}" AND NOT generated_source)
      message(FATAL_ERROR "${caller}: SOURCES file '${source}' does not exist")
    endif()
    get_filename_component(stem "${source}" NAME_WLE)
    string(MAKE_C_IDENTIFIER "${stem}" module)
    if(separable)
      set(module "${image}_${module}")
      set(fatbin "${out_dir}/${stem}.rdc.fatbin")
      set(fatbin_name --fatbin-name "${image}")
    else()
      set(fatbin "${out_dir}/${stem}.fatbin")
      set(fatbin_name "")
    endif()
    set(header "${out_dir}/${stem}.cubind.h")
    # The header under the target's name too (<kb/k.cubind.h>, beside the flat "k.cubind.h"):
    # a C file linking two targets whose .cu files share a name (a/k.cu, b/k.cu with PREFIXes)
    # reaches both.
    file(GENERATE OUTPUT "${out_dir}/${target}/${stem}.cubind.h"
         CONTENT "#include \"../${stem}.cubind.h\"\n")
    set(stubs "${out_dir}/${stem}.cubind.c")
    set(names "${out_dir}/${stem}.cubind.names")
    file(RELATIVE_PATH shown "${CMAKE_SOURCE_DIR}" "${source}")
    _cubind_depfile_escape("${fatbin}" fatbin_target)

    _cubind_source_flags("${source}" source_flags)
    set(nvcc_args -fatbin ${rdc} ${gencode} ${nvcc_flags} ${source_flags})
    if(NOT source MATCHES "\\.cu$")
      list(APPEND nvcc_args -x cu) # k.cuh, k.cpp: CUDA as cubind-gen reads it (nvcc goes by suffix)
    endif()
    add_custom_command(
      OUTPUT "${fatbin}"
      ${make_out_dir}
      COMMAND ${nvcc} ${nvcc_args} -MD -MF "${fatbin}.d" -MT "${fatbin_target}"
              -o "${fatbin}" "${source}"
      DEPENDS "${source}" ${made_inputs}
      DEPFILE "${fatbin}.d"
      COMMENT "cubind: nvcc ${shown} -> ${target}/${stem}.fatbin (${archs_shown})"
      COMMAND_EXPAND_LISTS VERBATIM)
    list(APPEND fatbins "${fatbin}")
    # one line per .cu: directory, file, output, then the command; bracket arguments hold any
    # text, and a list that a generator expression gives stays one argument (split when read)
    set(line "cubind_compile_command([==[${CMAKE_CURRENT_BINARY_DIR}]==] [==[${source}]==] "
             "[==[${fatbin}]==] [==[${CUBIND_NVCC_EXECUTABLE}]==]")
    # without the target's compile options: file(GENERATE) evaluates them for C (or each
    # enabled language), which would give nvcc the C stubs' options
    set(database_args ${nvcc_args})
    list(REMOVE_ITEM database_args "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>")
    foreach(arg IN LISTS database_args ITEMS -o "${fatbin}" "${source}")
      string(APPEND line " [==[${arg}]==]")
    endforeach()
    string(APPEND compile_commands ${line} ")\n")

    # The fatbin's kernels are the ground truth: the stubs wait for nvcc.
    set(kernels_from --kernels-from "${fatbin}")
    set(kernels_from_file "${fatbin}")
    if(explicit_only)
      set(kernels_from "")
      set(kernels_from_file "")
    endif()
    set(touch "")
    if(make_touch)
      set(touch COMMAND "${CMAKE_COMMAND}" -E touch_nocreate "${header}" "${stubs}" "${names}")
    endif()
    set(prefix_option "")
    if(prefix)
      set(prefix_option --prefix "${prefix}")
    endif()
    # A kernel of a user header that several .cu files of the target include is bound once: by
    # the first .cu whose binary holds it (the binaries of the .cu files before this one).
    set(earlier "")
    foreach(earlier_fatbin IN LISTS fatbins)
      if(NOT earlier_fatbin STREQUAL fatbin)
        list(APPEND earlier --earlier-binary "${earlier_fatbin}")
      endif()
    endforeach()
    set(earlier_files ${fatbins})
    list(REMOVE_ITEM earlier_files "${fatbin}")
    # Beside nvcc: cubind-gen --prepare builds the precompiled prelude (clang's CUDA headers and
    # the system headers the .cu begins with: CUB, Thrust) that the step after nvcc parses with,
    # so that step finds it warm. The option set must be that step's: the same options, and the
    # architectures of the fatbin's cubins (they define __CUDA_ARCH_LIST__).
    set(gen_options --nvcc-options ${rdc} ${gen_flags} ${source_flags} -- --cuda-path "${cuda_path}"
                    --cache-dir "${CMAKE_BINARY_DIR}/cubind-gen-cache")
    set(prepared "${out_dir}/${stem}.cubind-prepared")
    set(binary_archs "")
    if(kernels_from)
      list(JOIN real "," binary_archs) # 90a, 100f: their code has macros of its own
      set(binary_archs --binary-archs "${binary_archs}")
    endif()
    if(real STREQUAL "default")
      set(prepared "") # nvcc's default architecture: the fatbin's list is not known here
    else()
      add_custom_command(
        OUTPUT "${prepared}"
        ${make_out_dir}
        COMMAND "${gen}" ${gen_options} --prepare ${binary_archs} "${source}"
        COMMAND "${CMAKE_COMMAND}" -E touch "${prepared}"
        DEPENDS "${source}" "${gen}" ${made_inputs}
        COMMENT "cubind: cubind-gen --prepare ${shown} (the precompiled prelude)"
        COMMAND_EXPAND_LISTS VERBATIM)
    endif()
    add_custom_command(
      OUTPUT "${header}" "${stubs}" "${names}"
      COMMAND "${gen}" ${gen_options} --module-name "${module}" ${fatbin_name} ${prefix_option}
              -o "${out_dir}" --depfile "${header}.d" ${kernels_from} ${earlier} "${source}"
      ${touch}
      DEPENDS "${source}" "${gen}" ${kernels_from_file} ${earlier_files} ${prepared}
              ${made_inputs}
      DEPFILE "${header}.d"
      COMMENT "cubind: cubind-gen ${shown} -> ${target}/${stem}.cubind.h, .cubind.c"
      COMMAND_EXPAND_LISTS VERBATIM)
    list(APPEND generated "${header}" "${stubs}")
    list(APPEND names_files "${names}")
    if(NOT separable)
      _cubind_embed_step(${target} "${gen}" "${fatbin}" "${prefix}" "${module}" "${make_touch}"
                         embedded)
      list(APPEND generated "${embedded}")
    endif()
  endforeach()

  if(separable) # one device link of every .cu's relocatable code: one image for all modules
    set(linked "${out_dir}/${target}.fatbin")
    add_custom_command(
      OUTPUT "${linked}"
      COMMAND ${nvcc} -dlink -fatbin ${gencode} ${nvcc_flags} -o "${linked}" ${fatbins}
      DEPENDS ${fatbins}
      COMMENT "cubind: nvcc -dlink ${target} -> ${target}/${target}.fatbin (${dlink_shown})"
      COMMAND_EXPAND_LISTS VERBATIM)
    _cubind_embed_step(${target} "${gen}" "${linked}" "${prefix}" "${image}" "${make_touch}"
                       embedded)
    list(APPEND generated "${embedded}")
  endif()

  # The target's own .cu files give no C name twice (linked programs are checked at the end).
  list(LENGTH names_files count)
  if(count GREATER 1)
    set(checked "${out_dir}/cubind-names.checked")
    add_custom_command(
      OUTPUT "${checked}"
      COMMAND "${gen}" --check-names ${names_files}
      COMMAND "${CMAKE_COMMAND}" -E touch "${checked}"
      DEPENDS ${names_files} "${gen}"
      COMMENT "cubind: checking the C names of ${target}"
      VERBATIM)
    list(APPEND generated "${checked}")
  endif()
  # The stubs are C that also compiles as C++: a project of C++ alone (project(app LANGUAGES
  # CXX CUDA)) builds them as C++ rather than stop at CMake's generate step.
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST languages)
    if(NOT "CXX" IN_LIST languages)
      message(FATAL_ERROR "${caller}: the generated stubs are C or C++ sources, and this project "
                          "enables neither: add C to project(... LANGUAGES C)")
    endif()
    set(c_sources "${generated}")
    list(FILTER c_sources INCLUDE REGEX "\\.c$")
    set_source_files_properties(${c_sources} PROPERTIES LANGUAGE CXX)
    set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
  endif()
  target_sources(${target} PRIVATE ${generated})
  # For compile_commands.json (Ninja, Ninja Multi-Config and Makefiles, as CMake's own; the
  # path is registered by add_gpu_kernels()).
  get_property(fragments GLOBAL PROPERTY _CUBIND_COMPILE_COMMAND_FRAGMENTS)
  if("${out_dir}/cubind-compile-commands.cmake" IN_LIST fragments)
    file(GENERATE OUTPUT "${out_dir}/cubind-compile-commands.cmake" CONTENT "${compile_commands}")
  endif()
endfunction()

# The step embedding a fatbin as <prefix><name>.fatbin.c; its path into out_var.
function(_cubind_embed_step target gen fatbin prefix name make_touch out_var)
  get_target_property(out_dir ${target} CUBIND_OUT_DIR)
  set(embedded "${out_dir}/${prefix}${name}.fatbin.c")
  set(touch "")
  if(make_touch)
    set(touch COMMAND "${CMAKE_COMMAND}" -E touch_nocreate "${embedded}")
  endif()
  set(prefix_option "")
  if(prefix)
    set(prefix_option --prefix "${prefix}")
  endif()
  get_filename_component(fatbin_name "${fatbin}" NAME)
  add_custom_command(
    OUTPUT "${embedded}"
    COMMAND "${gen}" --embed-fatbin "${fatbin}" --module-name "${name}" ${prefix_option}
            -o "${out_dir}"
    ${touch}
    DEPENDS "${fatbin}" "${gen}"
    COMMENT "cubind: embedding ${target}/${fatbin_name} -> ${target}/${prefix}${name}.fatbin.c"
    VERBATIM)
  set(${out_var} "${embedded}" PARENT_SCOPE)
endfunction()

# Registers a global C name for the whole build; a clear configure error when another target
# of this build already took it (used for SEPARABLE fatbins, named after their target).
function(_cubind_claim_name caller what name)
  get_property(owner GLOBAL PROPERTY _CUBIND_NAME_OWNER_${name})
  if(owner AND NOT owner STREQUAL "${caller}")
    message(FATAL_ERROR "${caller}: ${what} is already defined by ${owner}: rename a target or "
                        "give one a PREFIX")
  endif()
  set_property(GLOBAL PROPERTY _CUBIND_NAME_OWNER_${name} "${caller}")
endfunction()

# `target` and the targets it links, directly or through other libraries (aliases resolved).
function(_cubind_linked_targets target out)
  set(queue ${target})
  set(seen "")
  set(found "")
  while(queue)
    list(POP_FRONT queue current)
    if(current IN_LIST seen OR NOT TARGET "${current}")
      continue()
    endif()
    list(APPEND seen "${current}")
    get_target_property(aliased "${current}" ALIASED_TARGET)
    if(aliased)
      list(APPEND queue "${aliased}")
      continue()
    endif()
    list(APPEND found "${current}")
    get_target_property(imported "${current}" IMPORTED)
    get_target_property(type "${current}" TYPE)
    set(links "")
    if(NOT imported AND NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(links "${current}" LINK_LIBRARIES)
    endif()
    get_target_property(interface "${current}" INTERFACE_LINK_LIBRARIES)
    foreach(item IN LISTS links interface)
      if(item MATCHES "^::@" OR item MATCHES "-NOTFOUND$")
        continue()
      endif()
      if(item MATCHES "[$<>]")
        # $<LINK_ONLY:x> (static libraries' private links), $<BUILD_INTERFACE:x>,
        # $<$<CONFIG:Debug>:x>: any target a generator expression names may be linked (the
        # check errs on the side of a clash); $<INSTALL_INTERFACE:...> is an installed
        # package's, not this build's
        string(REGEX REPLACE "\\$<INSTALL_INTERFACE:[^>]*>" "" item "${item}")
        string(REGEX MATCHALL "[A-Za-z0-9_.+-]+(::[A-Za-z0-9_.+-]+)*" names "${item}")
        foreach(name IN LISTS names)
          if(TARGET "${name}")
            list(APPEND queue "${name}")
          endif()
        endforeach()
        continue()
      endif()
      list(APPEND queue "${item}")
    endforeach()
  endwhile()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# Every target defined in `dir` and its subdirectories, each directory once: get_property()
# takes a path that is both a subdirectory's source directory and another directory's binary
# directory (a build configured in <source>/tools, whose top level adds tools/) for the latter,
# and the walk would go round (that subdirectory's own targets are out of its reach).
function(_cubind_all_targets dir out)
  set(queue "${dir}")
  set(seen "")
  set(targets "")
  while(queue)
    list(POP_FRONT queue current)
    get_property(binary_dir DIRECTORY "${current}" PROPERTY BINARY_DIR)
    if(binary_dir IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${binary_dir}")
    get_property(found DIRECTORY "${current}" PROPERTY BUILDSYSTEM_TARGETS)
    get_property(subdirs DIRECTORY "${current}" PROPERTY SUBDIRECTORIES)
    list(APPEND targets ${found})
    list(APPEND queue ${subdirs})
  endwhile()
  set(${out} "${targets}" PARENT_SCOPE)
endfunction()

# At the end of the top-level directory: each kernel target's $<COMPILE_LANGUAGE:CUDA> tests
# (again) and the properties its steps were made from; for each executable and shared library
# that links two or more add_gpu_kernels() targets, a step before its link checks their C names
# together; with CMAKE_EXPORT_COMPILE_COMMANDS, the nvcc steps join compile_commands.json.
function(_cubind_finish_build)
  get_property(kernel_targets GLOBAL PROPERTY CUBIND_KERNEL_TARGETS)
  foreach(kernels IN LISTS kernel_targets)
    _cubind_compile_language_as_cuda(${kernels}) # links and properties set since its steps
    _cubind_system_include_dirs(${kernels})
    _cubind_check_fixed_properties(${kernels})
  endforeach()
  _cubind_all_targets("${CMAKE_SOURCE_DIR}" targets)
  foreach(program IN LISTS targets)
    get_target_property(type ${program} TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
      continue()
    endif()
    _cubind_linked_targets(${program} reached)
    set(linked "")
    foreach(current IN LISTS reached)
      if(current IN_LIST kernel_targets)
        list(APPEND linked ${current})
      endif()
    endforeach()
    list(LENGTH linked count)
    if(count LESS 2)
      continue()
    endif()
    set(names_files "")
    set(gen "")
    foreach(kernels IN LISTS linked)
      get_target_property(files ${kernels} CUBIND_NAMES_FILES)
      list(APPEND names_files ${files})
      if(NOT gen)
        get_target_property(gen ${kernels} CUBIND_GEN)
      endif()
    endforeach()
    set(checked_dir "${CMAKE_BINARY_DIR}/cubind-names")
    get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
    if(multi_config)
      set(checked_dir "${checked_dir}/$<CONFIG>") # each configuration's names files
    endif()
    set(checked "${checked_dir}/${program}.checked")
    file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/cubind-names") # (make creates no output folders)
    list(JOIN linked ", " linked_shown)
    add_custom_command(
      OUTPUT "${checked}"
      COMMAND "${gen}" --check-names ${names_files}
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${checked_dir}"
      COMMAND "${CMAKE_COMMAND}" -E touch "${checked}"
      DEPENDS ${names_files} "${gen}"
      COMMENT "cubind: checking the C names linked into ${program} (${linked_shown})"
      VERBATIM)
    add_custom_target(cubind_names_${program} DEPENDS "${checked}")
    add_dependencies(cubind_names_${program} ${linked})
    add_dependencies(${program} cubind_names_${program})
  endforeach()
  _cubind_compile_commands()
endfunction()

# compile_commands.json gets CMake's own entries; the nvcc steps of every .cu are added by a
# build step (CubindCompileCommands.cmake, next to this file) from the lists that
# _cubind_add_build_steps wrote with file(GENERATE), generator expressions evaluated.
# (CMAKE_CURRENT_FUNCTION_LIST_DIR: this runs at the end of the top-level directory, which need
# not be the one that included this file.)
function(_cubind_compile_commands)
  get_property(fragments GLOBAL PROPERTY _CUBIND_COMPILE_COMMAND_FRAGMENTS)
  if(NOT fragments)
    return()
  endif()
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config) # every configuration's, as CMake's database holds each one's compiles
    set(paths "${fragments}")
    set(fragments "")
    foreach(config IN LISTS CMAKE_CONFIGURATION_TYPES)
      string(REPLACE "$<CONFIG>" "${config}" each "${paths}")
      list(APPEND fragments ${each})
    endforeach()
  endif()
  set(database "${CMAKE_BINARY_DIR}/compile_commands.json")
  set(stamp "${CMAKE_BINARY_DIR}/cubind-compile-commands.stamp")
  set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/CubindCompileCommands.cmake")
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND "${CMAKE_COMMAND}" "-DDATABASE=${database}" "-DFRAGMENTS=${fragments}"
            "-DSTAMP=${stamp}" -P "${script}"
    DEPENDS ${fragments} "${database}" "${script}"
    COMMENT "cubind: adding the nvcc steps to compile_commands.json"
    VERBATIM)
  add_custom_target(cubind_compile_commands ALL DEPENDS "${stamp}")
endfunction()

# README.md's recipes, copied from it and run as printed, with only the environment of a user
# who installed cubind into a prefix (PATH with the prefix's bin/ and nvcc's directory,
# PKG_CONFIG_PATH): vec.cu and main.c from their blocks, then
#   - the "Without CMake" block (nvcc, cubind-gen, cc -std=c99 -pedantic -Werror with pkg-config):
#     the program must need only the driver (no libcubind among its NEEDED libraries);
#   - the CMakeLists.txt block, configured and built against the prefix.
# Each program runs: "30" with a GPU, or its error message and exit status 1 without one.
#   cmake -DPREFIX=... -DLIBDIR=lib -DWORK_DIR=... -DGENERATOR=Ninja -DNVCC=... -DREADELF=...
#         -DPKG_CONFIG=... -DSOURCE_DIR=... -P readme.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(PREFIX LIBDIR WORK_DIR GENERATOR NVCC READELF PKG_CONFIG SOURCE_DIR)
cubind_require_tool(PKG_CONFIG "pkg-config" pkg-config)
cubind_require_tool(READELF "readelf" binutils)
file(REMOVE_RECURSE "${WORK_DIR}")
set(readme "${SOURCE_DIR}/README.md")
cubind_readme_block(vec_cu "${readme}" "^// vec\\.cu")
cubind_readme_block(main_c "${readme}" "^// main\\.c")
cubind_readme_block(recipe "${readme}" "^# Without CMake")
cubind_readme_block(cmakelists "${readme}" "^# CMakeLists\\.txt")

get_filename_component(nvcc_dir "${NVCC}" DIRECTORY)
get_filename_component(pkg_config_dir "${PKG_CONFIG}" DIRECTORY)
set(user_env "PATH=${PREFIX}/bin:${nvcc_dir}:${pkg_config_dir}:/usr/local/bin:/usr/bin:/bin"
             "PKG_CONFIG_PATH=${PREFIX}/${LIBDIR}/pkgconfig")

# run_program(<what> <program>): "30" with a GPU; exit 1 and a message without one.
function(run_program what program)
  execute_process(COMMAND "${program}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 AND out STREQUAL "30\n")
    message(STATUS "${what}: printed 30")
  elseif(rc EQUAL 1 AND err MATCHES "[a-z]" AND out STREQUAL "")
    message(STATUS "${what}: no GPU here, the program says so: ${err}")
  else()
    message(FATAL_ERROR "${what}: unexpected exit status ${rc}, output '${out}', errors '${err}'")
  endif()
  cubind_run(dynamic "${READELF}" -d "${program}")
  if(dynamic MATCHES "libcubind")
    message(FATAL_ERROR "${what}: the program needs libcubind, not only the driver:\n${dynamic}")
  endif()
endfunction()

# Without CMake: the block as a shell script.
set(dir "${WORK_DIR}/plain")
file(WRITE "${dir}/vec.cu" "${vec_cu}")
file(WRITE "${dir}/main.c" "${main_c}")
file(WRITE "${dir}/recipe.sh" "set -e\n${recipe}")
execute_process(COMMAND "${CMAKE_COMMAND}" -E env --unset=CUDAARCHS --unset=CFLAGS ${user_env}
                        sh -x recipe.sh
                WORKING_DIRECTORY "${dir}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "README.md's recipe without CMake failed (${rc}):\n${out}")
endif()
cubind_expect("${recipe}" "cc [^\n]*-std=c99 [^\n]*-pedantic[^\n]*-Werror" "the recipe's cc line")
run_program("the recipe without CMake" "${dir}/app")

# The CMakeLists.txt block.
set(dir "${WORK_DIR}/cmake")
file(WRITE "${dir}/vec.cu" "${vec_cu}")
file(WRITE "${dir}/main.c" "${main_c}")
file(WRITE "${dir}/CMakeLists.txt" "${cmakelists}")
cubind_run(output "${CMAKE_COMMAND}" -E env ${user_env} "${CMAKE_COMMAND}" -S "${dir}"
           -B "${dir}/build" -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${PREFIX}")
cubind_run(output "${CMAKE_COMMAND}" --build "${dir}/build")
run_program("the CMakeLists.txt" "${dir}/build/app")

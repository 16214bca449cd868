# Installs the build tree into a fresh PREFIX and checks that the package is complete: the
# targets, the CMake package files (and their version), both pkg-config files, the licence and
# changelog; the pkg-config files' version; and ldconfig's decision (it runs only for a
# directory of the loader's cache, as root, without DESTDIR).
#   cmake -DBUILD_DIR=build -DPREFIX=/tmp/p -DLIBDIR=lib -DVERSION=0.2.0 [-DPRELUDES=ON]
#         -P install.cmake
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
cubind_require(BUILD_DIR PREFIX LIBDIR VERSION)
file(REMOVE_RECURSE "${PREFIX}")
cubind_run(output "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}")
foreach(file IN ITEMS
    bin/cubind-gen
    include/cubind/cubind.h include/cubind/generated.h include/cubind/annotations.h
    ${LIBDIR}/libcubind_runtime.a ${LIBDIR}/libcubind.so
    ${LIBDIR}/cmake/cubind/cubindConfig.cmake ${LIBDIR}/cmake/cubind/cubindConfigVersion.cmake
    ${LIBDIR}/cmake/cubind/cubindTargets.cmake ${LIBDIR}/cmake/cubind/CubindGpuKernels.cmake
    ${LIBDIR}/cmake/cubind/CubindCompileCommands.cmake
    ${LIBDIR}/pkgconfig/cubind.pc ${LIBDIR}/pkgconfig/cubind-shared.pc
    share/doc/cubind/LICENSE share/doc/cubind/CHANGELOG.md)
  if(NOT EXISTS "${PREFIX}/${file}")
    message(FATAL_ERROR "not installed: ${PREFIX}/${file}\n${output}")
  endif()
endforeach()
# The installed preludes (generator/build_preludes.cmake, run again at install): a fresh
# cache's first run of the installed cubind-gen parses with the base one.
function(expect_installed_preludes prefix what)
  file(GLOB preludes "${prefix}/share/cubind/preludes/prelude-*.pch")
  if(NOT preludes)
    message(FATAL_ERROR "no preludes in ${prefix}/share/cubind/preludes (${what})")
  endif()
  set(work "${prefix}/../prelude-check")
  file(REMOVE_RECURSE "${work}")
  file(WRITE "${work}/k.cu" "__global__ void k(float *x) { x[0] = 1; }\n")
  cubind_run(report "${CMAKE_COMMAND}" -E env --unset=CUBIND_GEN_PRELUDE_DIR CUBIND_GEN_REPORT=1
             "${prefix}/bin/cubind-gen" --cache-dir "${work}/cache" -o "${work}/out" "${work}/k.cu")
  cubind_expect("${report}" "cubind-gen: prelude prelude-[0-9a-f]+\\.pch \\(0 of 0"
                "the installed cubind-gen's first run with an empty cache (${what})")
  file(REMOVE_RECURSE "${work}")
endfunction()
if(PRELUDES)
  expect_installed_preludes("${PREFIX}" "cmake --install")
  # A package staged with DESTDIR holds none (their paths would be the stage's); its installed
  # install_preludes.cmake builds them once the tree is in its final place (here the base prelude
  # alone, to keep the test short).
  set(final "${PREFIX}-packaged")
  set(stage "${PREFIX}-stage")
  file(REMOVE_RECURSE "${final}" "${stage}")
  cubind_run(output "${CMAKE_COMMAND}" -E env "DESTDIR=${stage}" "${CMAKE_COMMAND}" --install
             "${BUILD_DIR}" --prefix "${final}")
  cubind_expect("${output}" "once installed, run: cmake -P ${final}/share/cubind/install_preludes\\.cmake"
                "the DESTDIR install's advice")
  file(GLOB staged "${stage}${final}/share/cubind/preludes/prelude-*.pch")
  if(staged OR NOT EXISTS "${stage}${final}/share/cubind/install_preludes.cmake")
    message(FATAL_ERROR "a DESTDIR install: preludes built in the stage, or no "
                        "install_preludes.cmake\n${output}")
  endif()
  file(COPY "${stage}${final}/" DESTINATION "${final}")
  cubind_run(output "${CMAKE_COMMAND}" -DARCH_LISTS=none -DGROUPS= -DCHECKED= -DOPENMP=OFF
             -P "${final}/share/cubind/install_preludes.cmake")
  expect_installed_preludes("${final}" "a DESTDIR package after install_preludes.cmake")
  file(REMOVE_RECURSE "${final}" "${stage}")
endif()
file(READ "${PREFIX}/share/doc/cubind/LICENSE" license)
cubind_expect("${license}" "^MIT License" "the installed LICENSE")
foreach(pc IN ITEMS cubind cubind-shared)
  file(READ "${PREFIX}/${LIBDIR}/pkgconfig/${pc}.pc" text)
  cubind_expect("${text}" "\nVersion: ${VERSION}\n" "${pc}.pc's version")
  cubind_expect("${text}" "\nCflags: [^\n]*-isystem " "${pc}.pc: the toolkit's headers as system ones")
endforeach()
file(READ "${PREFIX}/${LIBDIR}/pkgconfig/cubind.pc" text)
cubind_expect("${text}" "\nLibs: [^\n]*libcubind_runtime\\.a" "cubind.pc links the static runtime")

# ldconfig: never for a private prefix; for /usr/local/lib (in the loader's cache on Debian) it
# would run as root, and says what to do otherwise.
get_filename_component(script "${CMAKE_CURRENT_LIST_DIR}/../../cmake/CubindLdconfig.cmake" ABSOLUTE)
cubind_run(output "${CMAKE_COMMAND}" "-DLIBDIR=${PREFIX}/${LIBDIR}" -DDRY_RUN=ON -P "${script}")
cubind_expect("${output}" "ldconfig: not needed" "ldconfig for ${PREFIX}/${LIBDIR}")
if(EXISTS /etc/ld.so.conf.d/libc.conf)
  file(READ /etc/ld.so.conf.d/libc.conf libc_conf)
  if(libc_conf MATCHES "/usr/local/lib")
    cubind_run(output "${CMAKE_COMMAND}" -DLIBDIR=/usr/local/lib -DDRY_RUN=ON -P "${script}")
    cubind_expect("${output}" "ldconfig: (would run|not run \\(not root\\))" "ldconfig for /usr/local/lib")
    cubind_run(output "${CMAKE_COMMAND}" -E env DESTDIR=/tmp/stage "${CMAKE_COMMAND}"
               -DLIBDIR=/usr/local/lib -DDRY_RUN=ON -P "${script}")
    cubind_expect("${output}" "ldconfig: not run: installing into DESTDIR" "ldconfig with DESTDIR")
  endif()
endif()

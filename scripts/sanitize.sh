#!/usr/bin/env bash
# sanitize.sh: the whole CPU test suite (ctest -L cpu) once more, with every C file cubind
# builds (generator, runtime, fake driver, tests) compiled with AddressSanitizer and
# UndefinedBehaviorSanitizer; any report fails the run. nvcc steps are untouched (no
# CMAKE_CUDA_FLAGS); the threading test runs under ThreadSanitizer in the ordinary build
# (runtime_threads_tsan, label cpu, in scripts/test.sh's build) since TSan and ASan cannot share a
# process; this script runs it too, from a TSan-only build of that one target.
#   scripts/sanitize.sh            configure build-asan (and build-tsan), build, run
# Environment: CUBIND_SANITIZE_DIR (default build-asan), JOBS (default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
cubind_base_deps
cubind_find_cuda
jobs=${JOBS:-$(nproc)}
dir=${CUBIND_SANITIZE_DIR:-build-asan}
root=$PWD

# ThreadSanitizer: the threading test, in its own build (scripts/test.sh's build runs it too).
echo "== ThreadSanitizer: runtime_threads_tsan"
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUBIND_LLVM_VERSION=19 \
  -DCUBIND_BUILD_EXAMPLES=OFF -DCUBIND_BUILD_BENCHMARKS=OFF -DCUBIND_BUILD_GENERATOR=ON >/dev/null
cmake --build build-tsan -j "$jobs" --target test_runtime_threads_tsan
ctest --test-dir build-tsan -R '^runtime_threads_tsan$' --no-tests=error --output-on-failure

san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -g"
# CUBIND_HAVE_TSAN=OFF: the TSan test would add -fsanitize=thread to these flags (not allowed
# together); it runs in the ordinary build instead (and above).
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCUBIND_LLVM_VERSION=19 \
  -DCUBIND_BUILD_EXAMPLES=OFF -DCUBIND_BUILD_BENCHMARKS=OFF -DCUBIND_HAVE_TSAN=OFF \
  "-DCMAKE_C_FLAGS=$san" "-DCMAKE_CXX_FLAGS=$san" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" \
  "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined" >/dev/null
# Set before the build, which runs the ASan-built cubind-gen (add_gpu_kernels steps).
# detect_leaks: LeakSanitizer on every exit; abort_on_error: a report is a failure, whatever
# the program's own exit status. The suppression file names libclang only (see its comment).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
# libclang parses and saves on threads of its own; ASan cannot unmap such a thread's alternate
# signal stack when it ends ("failed to deallocate"): it parses on the caller's thread here
export LIBCLANG_NOTHREADS=1
cmake --build "$dir" -j "$jobs"

# Excluded by name:
#   _valgrind$   valgrind cannot run an ASan binary (both replace the allocator and shadow memory);
#                the ASan run checks the same suites (runtime_api, runtime_init) for leaks itself.
#   ^runtime_alloc$  counts allocations by defining malloc/calloc/realloc itself over
#                glibc's __libc_* functions: ASan must own the allocator (it aborts at start-up);
#                the ordinary build runs it.
#   ^fuzz\.      the fuzz tests build their own ASan+UBSan (+libFuzzer) binaries with clang and
#                already run in the ordinary build.
#   ^cmake\.     the CMake consumer tests build fresh projects, with their own unsanitized flags,
#                against this build's libcubind, whose ASan-instrumented objects then fail to
#                link (undefined __asan_* symbols); they test CMake code, and pass in the
#                ordinary build.
ctest --test-dir "$dir" -L cpu -E '_valgrind$|^runtime_alloc$|^cmake\.|^fuzz\.' --no-tests=error --output-on-failure \
  -j "$jobs" --timeout 900


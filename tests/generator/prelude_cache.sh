#!/usr/bin/env bash
# prelude_cache.sh: which precompiled prelude a run parses with (CUBIND_GEN_REPORT=1 says
# it on stderr), and that the outputs never depend on it (issue 16). A run never builds a prelude
# itself: a missing one is built by a detached background builder, which holds
# prelude-<base key>.lock while it works (the test waits on that lock). Checks:
#   - the first run of a fresh cache parses without a prelude; its builder, detached from the
#     run's stdout and stderr, builds the base prelude and the .cu's, chained onto it
#   - <cuda_runtime.h>, which the base prelude holds (<name>.files), is not part of the key
#   - a .cu whose leading system headers extend a cached list parses with that list's prelude
#     (a prefix) until the builder has made its own
#   - a prelude whose .files or .sum is damaged is not used, and is rebuilt
#   - option sets that differ in -D, -U and -I arguments share the base prelude, unless a base
#     header names one of the macros or a -I directory could stand in for one of its headers
#   - the C++ library's headers and -isystem ones are part of the list, a header of a user
#     directory (-I) ends it; a system header changed in place makes the preludes that hold it
#     unused (clang itself does not check system headers) until they are rebuilt
#   - a user's -include file's kernels are bound with a warm cache too (the prelude holds it)
#   - #define lines are part of the list, <cubind/annotations.h> is stepped over, a local header
#     is followed into its leading lines; a list of #include lines alone takes the prelude of a
#     subsequence; a list asked for while the builder is busy is built by that builder after; a
#     list's toolkit headers get preludes of their own (each prefix), which other lists find;
#     a list with a macro line first takes its headers' prelude only where none of them names
#     the macro
#   - a list of seven toolkit headers: chains of four preludes at most, the whole list's loads
#   - --prepare builds the whole prelude in the foreground, --binary-archs for the run
#     --kernels-from a binary of those architectures (with nvcc)
#   - installed preludes (what cubind's build makes): a fresh cache's run takes them, also with
#     -D, -U and -I arguments that change nothing in them (a CUB one: through CCCL's
#     __has_include forwarding macro), not with ones that do, nor when damaged; a run never
#     writes there, and its builder chains the cache's preludes onto them; a .cu that includes
#     <cub/block/block_reduce.cuh> takes the group of <cub/config.cuh> and <cub/util_type.cuh>
#     (which that header includes first), unless one of them names a macro line of the .cu;
#     a checked group (<thrust/transform.h>) is tried first, and taken only where the parse names
#     it in an #include of its own (<thrust/sort.h>, not <thrust/fill.h>), not tried where the
#     headers' texts show it unread (<thrust/functional.h>), and the builder never chains onto
#     it; libcu++'s group is taken for <cuda/std/complex>, not tried for <cuda/std/limits>; a
#     variant built with --extended-lambda is taken by a run with it where the directory's
#     `variants` file names the option
#   prelude_cache.sh <cubind-gen> <cubind include dir> <work dir> [nvcc]
set -u
gen=$1 include=$2 work=$3 nvcc=${4:-}
# libclang before 16 parses without the prelude (clang_session.c: uses_prelude_cache)
major=$("$gen" --version | sed -n 's/^libclang: .*clang version \([0-9][0-9]*\)\..*/\1/p')
if [[ -z $major ]]; then
  echo "prelude_cache: no libclang version in: $("$gen" --version)" >&2
  exit 1
fi
if ((major < 16)); then
  echo "prelude_cache: skipped: libclang $major has no prelude cache (16 and newer)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work"
# the checks before the last section are of the cache alone (cubind's own preludes at the end)
export CUBIND_GEN_PRELUDE_DIR=
work=$(cd "$work" && pwd -P) # as /proc names the builder's lock
cache=$work/cache
fail() { echo "prelude_cache: $*" >&2; exit 1; }
kernel='extern "C" __global__ void scale(CUBIND_INOUT_N(n) float *x, float s, int n) { if (n) x[0] *= s; }'
printf '#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n#include <cubind/annotations.h>\n%s\n' \
  "$kernel" >"$work/rt_fp16.cu"
printf '#include <cuda_fp16.h>\n#include <cubind/annotations.h>\n%s\n' "$kernel" >"$work/fp16.cu"
printf '#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <cubind/annotations.h>\n%s\n' \
  "$kernel" >"$work/fp16_bf16.cu"
# expected_outputs NAME...: the outputs every run on NAME.cu must give (a --no-cache run's)
expected_outputs() {
  local name
  for name in "$@"; do
    "$gen" --no-cache -I "$include" -o "$work/expected" "$work/$name.cu" || fail "$name: --no-cache run failed"
  done
}
expected_outputs rt_fp16 fp16 fp16_bf16

# run NAME: runs cubind-gen with the cache on NAME.cu; the report line goes to $report
run() {
  local name=$1 err
  rm -rf "$work/out"
  err=$(CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$cache" -I "$include" -o "$work/out" \
        "$work/$name.cu" 2>&1 >/dev/null) || fail "$name: cubind-gen failed: $err"
  report=$(printf '%s\n' "$err" | grep '^cubind-gen: prelude ') || fail "$name: no report in: $err"
  cmp -s "$work/out/$name.cubind.h" "$work/expected/$name.cubind.h" ||
    fail "$name: the header differs from the --no-cache run's ($report)"
}
expect() { # expect WHAT PATTERN
  [[ $report =~ $2 ]] || fail "$1: expected '$2', got '$report'"
}
wait_builder() { local lock; for lock in "$cache"/prelude-*.lock; do flock "$lock" true; done; }
prelude_of() { echo "${report#cubind-gen: prelude }" | cut -d' ' -f1; }

run rt_fp16
expect "fresh cache" '^cubind-gen: prelude none \(0 of 2 leading lines\)$'
# it started a builder (the lock is its), which does not hold the run's stdout or stderr (make
# and ninja would wait for it): a process with the lock open has them on /dev/null (checked
# when the builder is still at work, which it mostly is: it builds two preludes)
lock=$(ls "$cache"/prelude-*.lock) || fail "no builder lock in the cache"
for fd in $(find /proc/[0-9]*/fd -lname "$lock" 2>/dev/null); do
  for std in 0 1 2; do
    target=$(readlink "${fd%/fd/*}/fd/$std" 2>/dev/null) || continue # it has just exited
    [[ $target == /dev/null ]] || fail "the builder's descriptor $std is $target, not /dev/null"
  done
done
wait_builder
[[ $(ls "$cache"/prelude-*.pch | wc -l) -eq 2 ]] || fail "the builder made $(ls "$cache"/*.pch | wc -l) preludes, not 2"

run rt_fp16
expect "warm cache" '^cubind-gen: prelude prelude-[0-9a-f]{16}\.pch \(1 of 1 leading lines\)$'
fp16_prelude=$(prelude_of)
# it is chained onto the base prelude: its .files lists what it adds, the base's the rest. The
# base is chained onto none (its .sum has two checksums), and it is the one shared by option sets
# that differ in -D, -U and -I arguments: not keyed on `-I $include`, so not named as the option
# set's lock
base_prelude=$(cd "$cache" && grep -l '^[0-9a-f]\{16\} [0-9a-f]\{16\}$' prelude-*.pch.sum) ||
  fail "no base prelude in the cache"
base_prelude=${base_prelude%.sum}
[[ $base_prelude != "$(basename "$(ls "$cache"/prelude-*.lock)" .lock).pch" ]] ||
  fail "the base prelude $base_prelude is keyed on the run's -I argument"
grep -q "^[0-9a-f]\{16\} [0-9a-f]\{16\} [0-9a-f]\{16\} $base_prelude\$" "$cache/$fp16_prelude.sum" ||
  fail "$fp16_prelude is not chained onto the base prelude $base_prelude"
grep -q '/cuda_fp16\.h$' "$cache/$fp16_prelude.files" || fail "$fp16_prelude.files lacks cuda_fp16.h"
grep -q '/cuda_runtime\.h$' "$cache/$fp16_prelude.files" && fail "$fp16_prelude.files lists the base's files"
grep -q '/cuda_runtime\.h$' "$cache/$base_prelude.files" || fail "$base_prelude.files lacks cuda_runtime.h"

run fp16 # the same key: <cuda_runtime.h> is held by the base prelude
expect "normalised key" "^cubind-gen: prelude $fp16_prelude \\(1 of 1 leading lines\\)\$"

run fp16_bf16 # a prefix is cached: used, and the whole list's prelude built meanwhile
expect "prefix" "^cubind-gen: prelude $fp16_prelude \\(1 of 2 leading lines\\)\$"
wait_builder
run fp16_bf16
expect "whole list" '^cubind-gen: prelude prelude-[0-9a-f]{16}\.pch \(2 of 2 leading lines\)$'
[[ $(prelude_of) != "$fp16_prelude" ]] || fail "fp16_bf16 still uses the prefix's prelude"

# a damaged list of held files: that prelude is not used (the base is), and is rebuilt
echo /nowhere/extra.h >>"$cache/$fp16_prelude.files"
run fp16
expect "damaged .files" '^cubind-gen: prelude prelude-[0-9a-f]{16}\.pch \(0 of 1 leading lines\)$'
wait_builder
run fp16
expect "rebuilt after a damaged .files" "^cubind-gen: prelude $fp16_prelude \\(1 of 1 leading lines\\)\$"
# a rebuilt base prelude: the preludes chained onto it are not used (clang would not load them)
rm -f "$cache/$base_prelude.sum"
run fp16
expect "missing base" '^cubind-gen: prelude none \(0 of 1 leading lines\)$'
wait_builder
run fp16
expect "rebuilt base" "^cubind-gen: prelude $fp16_prelude \\(1 of 1 leading lines\\)\$"
grep -q " $base_prelude\$" "$cache/$fp16_prelude.sum" || fail "$fp16_prelude is not chained onto the new base"
# a damaged checksum file, then none at all
printf 'garbage\n' >"$cache/$fp16_prelude.sum"
run fp16
expect "damaged .sum" '\(0 of 1 leading lines\)$'
wait_builder
rm -f "$cache/$fp16_prelude.sum"
run fp16
expect "missing .sum" '\(0 of 1 leading lines\)$'
wait_builder
run fp16
expect "rebuilt after a missing .sum" "^cubind-gen: prelude $fp16_prelude \\(1 of 1 leading lines\\)\$"

# the C++ library and -isystem directories are system headers; a -I one ends the list
mkdir -p "$work/sys"
printf '#ifndef MYSYS_H\n#define MYSYS_H\ntypedef int mysys_t;\n#endif\n' >"$work/sys/mysys.h"
printf '#include <vector>\n#include <mysys.h>\n#include <cuda_fp16.h>\n%s\n' \
  'extern "C" __global__ void fill(mysys_t *x) { x[0] = 1; }' >"$work/sys.cu"
# run_sys DIR_OPTION: run on sys.cu with the header directory given as DIR_OPTION; the header
# must be the --no-cache run's
run_sys() {
  local err
  rm -rf "$work/out" "$work/expected_sys"
  "$gen" --no-cache "$1" "$work/sys" -o "$work/expected_sys" "$work/sys.cu" || fail "sys: --no-cache run failed"
  err=$(CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$cache" "$1" "$work/sys" -o "$work/out" \
        "$work/sys.cu" 2>&1 >/dev/null) || fail "sys: cubind-gen failed: $err"
  report=$(printf '%s\n' "$err" | grep '^cubind-gen: prelude ') || fail "sys: no report in: $err"
  cmp -s "$work/out/sys.cubind.h" "$work/expected_sys/sys.cubind.h" ||
    fail "sys: the header differs from the --no-cache run's ($report)"
}
run_sys -isystem
wait_builder
run_sys -isystem
expect "C++ library and -isystem headers" '\(3 of 3 leading lines\)$'
grep -q 'int \*x' "$work/out/sys.cubind.h" || fail "sys: fill does not take an int *"
# changed in place (the same modification second, a size clang does not look at)
printf '#ifndef MYSYS_H\n#define MYSYS_H\ntypedef float mysys_t;\n#endif\n' >"$work/sys/mysys.h"
run_sys -isystem
expect "a system header changed" '\([0-1] of 3 leading lines\)$'
grep -q 'float \*x' "$work/out/sys.cubind.h" || fail "sys: fill does not take a float * after the change"
wait_builder
run_sys -isystem
expect "rebuilt after a system header changed" '\(3 of 3 leading lines\)$'
run_sys -I # another option set, whose -I directory holds nothing of the base: it shares the base
expect "another option set, the shared base" "^cubind-gen: prelude $base_prelude \\(0 of 1 leading lines\\)\$"
wait_builder
run_sys -I
expect "a user header ends the list" '\(1 of 1 leading lines\)$'

# a user's -include file is parsed into the prelude (it comes before the .cu's headers): its
# kernel is still bound from the warm cache, where the run leaves the prelude's declarations out
# of its visits otherwise (clang_session.c: visits_local_declarations)
printf '#pragma once\n%s\n' 'extern "C" __global__ void pre_included(int *x) { x[0] = 1; }' \
  >"$work/pre.cuh"
printf '#include <cuda_fp16.h>\n%s\n' 'extern "C" __global__ void main_kernel(int *x) { x[0] = 2; }' \
  >"$work/pre_main.cu"
"$gen" --no-cache -include "$work/pre.cuh" -o "$work/expected_pre" "$work/pre_main.cu" ||
  fail "pre_main: --no-cache run failed"
for attempt in cold warm; do
  rm -rf "$work/out"
  err=$(CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$cache" -include "$work/pre.cuh" -o "$work/out" \
        "$work/pre_main.cu" 2>&1 >/dev/null) || fail "pre_main: cubind-gen failed: $err"
  report=$(printf '%s\n' "$err" | grep '^cubind-gen: prelude ') || fail "pre_main: no report in: $err"
  wait_builder
done
expect "-include, warm cache" '\(1 of 1 leading lines\)$'
grep -q 'pre_included_launch' "$work/out/pre_main.cubind.h" ||
  fail "pre_main: the -include file's kernel is unbound with the prelude ($report)"
cmp -s "$work/out/pre_main.cubind.h" "$work/expected_pre/pre_main.cubind.h" ||
  fail "pre_main: the header differs from the --no-cache run's ($report)"

# option sets that differ in -D, -U and -I arguments share the base prelude where those change
# nothing in it (NDEBUG too, which <assert.h> names: it changes no declaration). The option set
# gets a base of its own for a macro that one of the base's headers names
# (CUDA_API_PER_THREAD_DEFAULT_STREAM: cuda_runtime_api.h), and for a -I directory holding a
# file that clang could take
# for one the base holds (crt/host_config.h) or asks __has_include about (c++config.h:
# <tbb/tbb.h>). The macro reaches the .cu either way.
printf '#include <cuda_fp16.h>\n#include <cubind/annotations.h>\n#ifdef CUBIND_TEST_WIDE\ntypedef double elem_t;\n#else\ntypedef float elem_t;\n#endif\n%s\n' \
  'extern "C" __global__ void widen(CUBIND_INOUT_N(n) elem_t *x, int n) { if (n) x[0] *= 2; }' \
  >"$work/wide.cu"
mkdir -p "$work/shadow/crt" "$work/tbb/tbb"
cp "$(grep -o -m1 '/[^ ]*/crt/host_config\.h$' "$cache/$base_prelude.files")" "$work/shadow/crt/" ||
  fail "$base_prelude.files lacks crt/host_config.h"
: >"$work/tbb/tbb/tbb.h"
# run_wide WHAT ARG...: runs on wide.cu with the arguments; the header must be the --no-cache run's
run_wide() {
  local what=$1 err
  shift
  rm -rf "$work/out" "$work/expected_wide"
  "$gen" --no-cache "$@" -o "$work/expected_wide" "$work/wide.cu" || fail "$what: --no-cache run failed"
  err=$(CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$cache" "$@" -o "$work/out" "$work/wide.cu" 2>&1 >/dev/null) ||
    fail "$what: cubind-gen failed: $err"
  report=$(printf '%s\n' "$err" | grep '^cubind-gen: prelude ') || fail "$what: no report in: $err"
  cmp -s "$work/out/wide.cubind.h" "$work/expected_wide/wide.cubind.h" ||
    fail "$what: the header differs from the --no-cache run's ($report)"
}
run_wide "a macro and a -U" -I "$include" -DCUBIND_TEST_WIDE -UCUBIND_TEST_OTHER
expect "a macro and a -U, the shared base" "^cubind-gen: prelude $base_prelude \\(0 of 1 leading lines\\)\$"
grep -q 'double \*x' "$work/out/wide.cubind.h" || fail "wide: widen does not take a double * with the macro"
run_wide "NDEBUG" -I "$include" -DNDEBUG -DCUBIND_TEST_WIDE
expect "NDEBUG, the shared base" "^cubind-gen: prelude $base_prelude \\(0 of 1 leading lines\\)\$"
run_wide "a macro of cuda_runtime_api.h" -I "$include" -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1
expect "a macro of cuda_runtime_api.h" '^cubind-gen: prelude none \(0 of 1 leading lines\)$'
wait_builder
run_wide "a macro of cuda_runtime_api.h, built" -I "$include" -DCUDA_API_PER_THREAD_DEFAULT_STREAM=1
[[ $report =~ \((0|1)\ of\ 1 && $(prelude_of) != "$base_prelude" ]] ||
  fail "a macro of cuda_runtime_api.h: expected a base of its own, got '$report'"
for dir in shadow tbb; do
  run_wide "a -I directory with $dir" -I "$include" -I "$work/$dir"
  expect "a -I directory with $dir" '^cubind-gen: prelude none \(0 of 1 leading lines\)$'
done
wait_builder

# the lines a prelude holds beyond #include <...>: macro lines, cubind's annotations stepped
# over, a local header followed past its include guard (whose #define must stay out: the
# prelude would hide the header's kernel, and the header would differ from --no-cache's)
printf '#include <cubind/annotations.h>\n#define CUBIND_TEST_SCALE 2\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n%s\n' \
  'extern "C" __global__ void twice(CUBIND_INOUT_N(n) float *x, int n) { if (n) x[0] *= CUBIND_TEST_SCALE; }' \
  >"$work/macro.cu"
# (its header is <cuda_fp16.h>: one that holds <cuda_bf16.h>, which includes <cuda_fp16.h>, would
# be as heavy as fp16_bf16's below, and the subsequence case could take either)
printf '// a local header\n#ifndef LOCAL_K_CUH\n#define LOCAL_K_CUH\n#pragma once\n#include <cuda_fp16.h>\n#include <cubind/annotations.h>\n%s\n#endif\n' \
  'extern "C" __global__ void from_header(CUBIND_IN_N(n) const __half *x, CUBIND_OUT_N(n) float *y, int n) { if (n) y[0] = __half2float(x[0]); }' \
  >"$work/local_k.cuh"
printf '#include "local_k.cuh"\n#include <cuda_bf16.h>\n%s\n' "$kernel" >"$work/local.cu"
# a subsequence: <cuda_bf16.h> and <cuda_fp16.h> with a light header between them
printf '#include <cuda_fp16.h>\n#include <climits>\n#include <cuda_bf16.h>\n#include <cubind/annotations.h>\n%s\n' \
  "$kernel" >"$work/subsequence.cu"
expected_outputs macro local subsequence
grep -q 'from_header_launch' "$work/expected/local.cubind.h" || fail "local: no stub for the header's kernel"
run macro
wait_builder
run macro
expect "macro lines" '^cubind-gen: prelude prelude-[0-9a-f]{16}\.pch \(3 of 3 leading lines\)$'
run local
wait_builder
run local
expect "a local header's leading lines" '^cubind-gen: prelude prelude-[0-9a-f]{16}\.pch \(1 of 1 leading lines\)$'
run fp16_bf16 # rebuilt: the one before was chained onto the base prelude replaced above
wait_builder
run fp16_bf16
expect "whole list again" '^cubind-gen: prelude prelude-[0-9a-f]{16}\.pch \(2 of 2 leading lines\)$'
run subsequence # fp16_bf16's prelude holds two of its three headers, in their order
expect "subsequence" '^cubind-gen: prelude prelude-[0-9a-f]{16}\.pch \(2 of 3 leading lines\)$'
wait_builder
# two new lists at once: the second run finds the builder busy and leaves its list to it
printf '#include <climits>\n#include <cuda_fp16.h>\n#include <cubind/annotations.h>\n%s\n' "$kernel" >"$work/first.cu"
printf '#include <cfloat>\n#include <cuda_fp16.h>\n#include <cubind/annotations.h>\n%s\n' "$kernel" >"$work/second.cu"
expected_outputs first second
run first
run second
wait_builder
ls "$cache"/*.want-* >/dev/null 2>&1 && fail "a list left for the builder is still there"
for name in first second; do
  run $name
  expect "$name, built by one builder" '^cubind-gen: prelude prelude-[0-9a-f]{16}\.pch \(2 of 2 leading lines\)$'
done
# a list of the C++ library's headers and the toolkit's: the builder makes the toolkit's part
# first, under the whole list's, and the next list with that part and other library headers
# finds it
printf '#include <cstdint>\n#include <cuda_fp8.h>\n#include <cubind/annotations.h>\n%s\n' "$kernel" >"$work/fp8_a.cu"
printf '#include <cfloat>\n#include <cuda_fp8.h>\n#include <cubind/annotations.h>\n%s\n' "$kernel" >"$work/fp8_b.cu"
expected_outputs fp8_a fp8_b
run fp8_a
wait_builder
run fp8_a
expect "C++ and toolkit headers" '\(2 of 2 leading lines\)$'
fp8_whole=$(prelude_of)
run fp8_b
expect "the toolkit's part of another list" '\(1 of 2 leading lines\)$'
fp8_part=$(prelude_of)
grep -q '/cuda_fp8\.h$' "$cache/$fp8_part.files" || fail "$fp8_part.files lacks cuda_fp8.h"
grep -q " $fp8_part\$" "$cache/$fp8_whole.sum" || fail "$fp8_whole is not chained onto the toolkit's part $fp8_part"
wait_builder
# a list of toolkit headers alone: the builder makes each prefix's prelude on the way, and a
# list that shares only the first header finds it
printf '#include <cuda_fp6.h>\n#include <cuda_fp4.h>\n#include <cubind/annotations.h>\n%s\n' "$kernel" >"$work/fp6_fp4.cu"
printf '#include <cuda_fp6.h>\n#include <cfloat>\n#include <cubind/annotations.h>\n%s\n' "$kernel" >"$work/fp6_b.cu"
expected_outputs fp6_fp4 fp6_b
run fp6_fp4
wait_builder
run fp6_b
expect "a prefix of a list of toolkit headers" '^cubind-gen: prelude prelude-[0-9a-f]{16}\.pch \(1 of 2 leading lines\)$'
wait_builder
# a macro line before the headers: their prelude serves it only when no header it holds names
# the macro (fp8_a's, which holds <cstdint> and <cuda_fp8.h>), not when one tests it
printf '#define CUBIND_TEST_BLOCK 128\n#include <cstdint>\n#include <cuda_fp8.h>\n#include <cubind/annotations.h>\n%s\n' \
  "$kernel" >"$work/fp8_macro.cu"
printf '#define __CUDA_NO_FP8_CONVERSIONS__\n#include <cstdint>\n#include <cuda_fp8.h>\n#include <cubind/annotations.h>\n%s\n' \
  "$kernel" >"$work/fp8_tested.cu"
expected_outputs fp8_macro fp8_tested
run fp8_macro
expect "a macro no header names" "^cubind-gen: prelude $fp8_whole \\(2 of 3 leading lines\\)\$"
run fp8_tested
expect "a macro a header tests" '\(0 of 3 leading lines\)$'
wait_builder
run fp8_tested
expect "a macro a header tests, its own prelude" '\(3 of 3 leading lines\)$'
# --prepare builds the whole prelude in the foreground and writes nothing else (add_gpu_kernels
# runs it beside nvcc): the run after it takes the whole list's. With --binary-archs, the same
# for a run --kernels-from a binary of those architectures (given in another order), which
# nvcc makes here when the test has one.
printf '#include <cuda_fp16.h>\n#include <cstdio>\n#include <cuda_fp8.h>\n#include <cubind/annotations.h>\n%s\n' \
  "$kernel" >"$work/prep.cu"
expected_outputs prep
"$gen" --prepare --cache-dir "$cache" -I "$include" -o "$work/prep_out" "$work/prep.cu" ||
  fail "prep: --prepare failed"
[[ ! -e $work/prep_out ]] || fail "prep: --prepare wrote $(ls "$work/prep_out")"
run prep
expect "after --prepare" '\(3 of 3 leading lines\)$'
prepared=", --prepare"
if [[ -n $nvcc ]]; then
  "$nvcc" -fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
    -I "$include" -o "$work/prep.fatbin" "$work/prep.cu" || fail "prep: nvcc failed"
  "$gen" --prepare --binary-archs 90,80 --cache-dir "$cache" -I "$include" "$work/prep.cu" ||
    fail "prep: --prepare --binary-archs failed"
  err=$(CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$cache" -I "$include" --kernels-from \
        "$work/prep.fatbin" -o "$work/out" "$work/prep.cu" 2>&1 >/dev/null) ||
    fail "prep: the run --kernels-from failed: $err"
  report=$(printf '%s\n' "$err" | grep '^cubind-gen: prelude ')
  expect "--kernels-from after --prepare --binary-archs" '\(3 of 3 leading lines\)$'
  prepared=", --prepare (also for a binary's architectures)"
fi
# C++20: clang refuses in C++20 mode a PCH built without the parses' preprocessing record; the
# prelude is built with it, so a warm run parses once, with the prelude
printf '#include <cstdio>\n#include <cubind/annotations.h>\n%s\n' "$kernel" >"$work/cxx20.cu"
"$gen" --no-cache -std=c++20 -I "$include" -o "$work/expected" "$work/cxx20.cu" ||
  fail "cxx20: --no-cache run failed"
"$gen" --prepare --cache-dir "$cache" -std=c++20 -I "$include" -o "$work/prep_out" \
  "$work/cxx20.cu" || fail "cxx20: --prepare failed"
rm -rf "$work/out"
err=$(CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$cache" -std=c++20 -I "$include" -o "$work/out" \
      "$work/cxx20.cu" 2>&1 >/dev/null) || fail "cxx20: cubind-gen failed: $err"
[[ $(printf '%s\n' "$err" | grep -c '^cubind-gen: parse of ') == 1 &&
   $err =~ "parse of the .cu, prelude prelude-" ]] ||
  fail "cxx20: expected one parse, with the prelude; got: $err"
cmp -s "$work/out/cxx20.cubind.h" "$work/expected/cxx20.cubind.h" ||
  fail "cxx20: the header differs from the --no-cache run's"

# A list of seven toolkit headers: each prefix is chained onto the one before up to MAX_CHAIN
# preludes (libclang 19 crashed loading a chain of six: "libclang: crash detected during
# parsing", then a parse without it), and the whole list's loads.
{
  for header in cuda_fp16.h cuda_bf16.h cuda_fp8.h mma.h cuda_pipeline.h cuda_awbarrier.h \
                cooperative_groups.h cubind/annotations.h; do
    printf '#include <%s>\n' "$header"
  done
  printf '%s\n' "$kernel"
} >"$work/long.cu"
"$gen" --no-cache -I "$include" -o "$work/expected_long" "$work/long.cu" ||
  fail "long: --no-cache run failed"
"$gen" --prepare --cache-dir "$work/cache_long" -I "$include" -o "$work/prep_out" "$work/long.cu" ||
  fail "long: --prepare failed"
rm -rf "$work/out"
err=$(CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$work/cache_long" -I "$include" -o "$work/out" \
      "$work/long.cu" 2>&1 >/dev/null) || fail "long: cubind-gen failed: $err"
[[ $err =~ "(7 of 7 leading lines)" && ! $err =~ crash ]] &&
  [[ $(printf '%s\n' "$err" | grep -c '^cubind-gen: parse of ') == 1 ]] ||
  fail "long: expected one parse with the whole list's prelude; got: $err"
cmp -s "$work/out/long.cubind.h" "$work/expected_long/long.cubind.h" ||
  fail "long: the header differs from the --no-cache run's"
for sum in "$work/cache_long"/prelude-*.pch.sum; do
  links=1 link=$sum
  while parent=$(cut -d' ' -f4 "$link") && [[ -n $parent ]]; do
    links=$((links + 1)) link=$work/cache_long/$parent.sum
  done
  ((links <= 4)) || fail "long: $(basename "$sum" .sum) is a chain of $links preludes"
done

# Installed preludes: made as build_preludes.cmake makes them (the directory is its own cache
# and shim directory), for <cuda_fp16.h>; runs with fresh caches look them up after the cache.
installed=$work/installed
printf '#include <cuda_fp16.h>\n' >"$work/seed.cu"
CUBIND_GEN_PRELUDE_DIR=$installed "$gen" --prepare --cache-dir "$installed" -o "$work/prep_out" \
  "$work/seed.cu" || fail "installed: --prepare failed"
rm -f "$installed"/*.lock
[[ $(ls "$installed"/prelude-*.pch | wc -l) -eq 2 ]] || fail "installed: not a base and a list"
inst_base=$(cd "$installed" && grep -l '^[0-9a-f]\{16\} [0-9a-f]\{16\}$' prelude-*.pch.sum)
inst_base=${inst_base%.sum}
inst_fp16=$(cd "$installed" && ls prelude-*.pch | grep -v "^$inst_base\$")
# and for <cooperative_groups.h>, which tests -G's __CUDACC_DEBUG__ only together with CG_DEBUG
printf '#include <cooperative_groups.h>\n' >"$work/seed_cg.cu"
CUBIND_GEN_PRELUDE_DIR=$installed "$gen" --prepare --cache-dir "$installed" -o "$work/prep_out" \
  "$work/seed_cg.cu" || fail "installed: --prepare of cooperative groups failed"
rm -f "$installed"/*.lock
inst_cg=$(cd "$installed" && ls prelude-*.pch | grep -v -e "^$inst_base\$" -e "^$inst_fp16\$")
[[ $(printf '%s\n' "$inst_cg" | wc -l) -eq 1 ]] || fail "installed: not one cooperative groups list"
snapshot() { (cd "$installed" && find . -type f -printf '%p %s %T@\n' | sort); }
before=$(snapshot)
# run_installed WHAT FILE ARG...: a fresh cache's run on FILE.cu with the installed preludes;
# the header must be the --no-cache run's
run_installed() {
  local what=$1 name=$2 err
  shift 2
  rm -rf "$work/out" "$work/expected_inst" "$work/cache_inst"
  "$gen" --no-cache "$@" -o "$work/expected_inst" "$work/$name.cu" || fail "$what: --no-cache run failed"
  err=$(CUBIND_GEN_PRELUDE_DIR=$installed CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$work/cache_inst" \
        "$@" -o "$work/out" "$work/$name.cu" 2>&1 >/dev/null) || fail "$what: cubind-gen failed: $err"
  report=$(printf '%s\n' "$err" | grep '^cubind-gen: prelude ') || fail "$what: no report in: $err"
  cmp -s "$work/out/$name.cubind.h" "$work/expected_inst/$name.cubind.h" ||
    fail "$what: the header differs from the --no-cache run's ($report)"
}
printf '#include <cubind/annotations.h>\n%s\n' "$kernel" >"$work/plain.cu"
run_installed "a file of no leading line" plain -I "$include"
expect "installed base" "^cubind-gen: prelude $inst_base \\(0 of 0 leading lines\\)\$"
run_installed "fp16, -I, -D and -U that change nothing" fp16 -I "$include" -DCUBIND_TEST_X=1 -UCUBIND_TEST_Y \
  -DNDEBUG
expect "installed list" "^cubind-gen: prelude $inst_fp16 \\(1 of 1 leading lines\\)\$"
# nvcc's options whose macros no installed variant has count as the user's -D: no held header
# names --expt-relaxed-constexpr's
run_installed "fp16, --expt-relaxed-constexpr" fp16 -I "$include" \
  --nvcc-options --expt-relaxed-constexpr --
expect "an option's macro no held header names" \
  "^cubind-gen: prelude $inst_fp16 \\(1 of 1 leading lines\\)\$"
printf '\xEF\xBB\xBF' | cat - "$work/fp16.cu" >"$work/fp16_bom.cu" # a UTF-8 byte order mark first
run_installed "fp16 after a byte order mark" fp16_bom -I "$include"
expect "a byte order mark" "^cubind-gen: prelude $inst_fp16 \\(1 of 1 leading lines\\)\$"
# a macro that a held header tests where the outcome does not hang on it: CUDA 13's
# `defined(__CUDACC_DEBUG__) && defined(CG_DEBUG) && !defined(NDEBUG)`, CG_DEBUG not defined
printf '#include <cooperative_groups.h>\n#include <cubind/annotations.h>\n%s\n' "$kernel" \
  >"$work/cg.cu"
run_installed "cooperative groups, -G" cg -I "$include" --nvcc-options -G --
expect "-G's macro, tested with one no file defines" \
  "^cubind-gen: prelude $inst_cg \\(1 of 1 leading lines\\)\$"
run_installed "cooperative groups, -G and CG_DEBUG" cg -I "$include" -DCG_DEBUG --nvcc-options -G --
expect "-G's macro with CG_DEBUG defined" \
  "^cubind-gen: prelude $inst_base \\(0 of 1 leading lines\\)\$"
run_installed "fp16, a macro it tests" fp16 -I "$include" -D__CUDA_NO_HALF_CONVERSIONS__
expect "a macro the list's header tests" "^cubind-gen: prelude $inst_base \\(0 of 1 leading lines\\)\$"
mkdir -p "$work/shadow16"
cp "$(grep -m1 '/cuda_fp16\.hpp$' "$installed/$inst_fp16.files" | cut -d' ' -f3-)" "$work/shadow16/" ||
  fail "installed: $inst_fp16.files lacks cuda_fp16.hpp"
run_installed "fp16, a -I directory with one of its headers" fp16 -I "$include" -I "$work/shadow16"
expect "a -I directory that shadows" "^cubind-gen: prelude $inst_base \\(0 of 1 leading lines\\)\$"
# the run's builder builds what the list lacks into the cache, chained onto the installed one
run_installed "fp16_bf16" fp16_bf16 -I "$include"
expect "an installed prefix" "^cubind-gen: prelude $inst_fp16 \\(1 of 2 leading lines\\)\$"
for lock in "$work/cache_inst"/prelude-*.lock; do flock "$lock" true; done
chained=$(cd "$work/cache_inst" && grep -l " $inst_fp16\$" prelude-*.pch.sum) ||
  fail "installed: the cache's fp16_bf16 prelude is not chained onto $inst_fp16"
err=$(CUBIND_GEN_PRELUDE_DIR=$installed CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$work/cache_inst" \
      -I "$include" -o "$work/out" "$work/fp16_bf16.cu" 2>&1 >/dev/null) || fail "fp16_bf16: $err"
[[ $err =~ "prelude ${chained%.sum} (2 of 2 leading lines)" ]] ||
  fail "installed: the chained prelude ${chained%.sum} is not taken: $err"
[[ $(snapshot) == "$before" ]] || fail "installed: a run changed the installed directory"
# a damaged installed prelude is not used, and not removed
printf 'garbage\n' >>"$installed/$inst_fp16.files"
before=$(snapshot)
run_installed "fp16, a damaged installed prelude" fp16 -I "$include"
expect "a damaged installed prelude" "^cubind-gen: prelude $inst_base \\(0 of 1 leading lines\\)\$"
[[ $(snapshot) == "$before" ]] || fail "installed: the damaged prelude was touched"
# a variant (build_preludes.cmake: VARIANTS): preludes built with --extended-lambda, whose
# __CUDACC_EXTENDED_LAMBDA__ cuda_runtime.h names, so that none built without it fits; the
# directory's `variants` file names the option, which then keys them: a run with it takes them
variant=$work/variant
mkdir -p "$variant"
printf -- '--extended-lambda\n' >"$variant/variants"
CUBIND_GEN_PRELUDE_DIR=$variant "$gen" --prepare --cache-dir "$variant" \
  --nvcc-options --extended-lambda -- -o "$work/prep_out" "$work/seed.cu" ||
  fail "variant: --prepare failed"
rm -f "$variant"/*.lock
var_base=$(cd "$variant" && grep -l '^[0-9a-f]\{16\} [0-9a-f]\{16\}$' prelude-*.pch.sum)
var_fp16=$(cd "$variant" && ls prelude-*.pch | grep -v "^${var_base%.sum}\$")
[[ $var_fp16 != "$inst_fp16" ]] || fail "variant: keyed as the plain preludes"
plain_installed=$installed installed=$variant
run_installed "fp16, --extended-lambda" fp16 -I "$include" --nvcc-options --extended-lambda --
expect "the variant's list" "^cubind-gen: prelude $var_fp16 \\(1 of 1 leading lines\\)\$"
run_installed "fp16, --extended-lambda twice" fp16 -I "$include" \
  --nvcc-options --extended-lambda -expt-extended-lambda --
expect "the variant's list, the option twice" "^cubind-gen: prelude $var_fp16 \\(1 of 1 leading lines\\)\$"
rm "$variant/variants" # the same preludes, not named a variant: a run keys them as its -D
run_installed "fp16, --extended-lambda, no variants file" fp16 -I "$include" \
  --nvcc-options --extended-lambda --
[[ $report != *"$var_fp16"* && $report != *"(1 of 1 leading lines)"* ]] ||
  fail "variant: taken without the variants file: $report"
installed=$plain_installed
installed_checks="installed preludes (and a variant)"
# cubind's own, where its build made them (for the first architecture list the build was
# configured with, $CUBIND_TEST_PRELUDE_ARCHS, space-separated): a CUB file with a -I directory (CCCL asks
# __has_include through _CCCL_HAS_INCLUDE) and a fresh cache parses with one
own=$(dirname "$gen")/../share/cubind/preludes
read -r archs _ <<<"${CUBIND_TEST_PRELUDE_ARCHS:-}"
if [[ -n $(ls "$own"/prelude-*.pch 2>/dev/null) && -n $archs && ( $archs == none || -n $nvcc ) ]]; then
  printf '#include <cub/cub.cuh>\n#include <cubind/annotations.h>\n%s\n' "$kernel" >"$work/cub.cu"
  binary=()
  if [[ $archs != none ]]; then
    gencode=()
    for arch in ${archs//,/ }; do gencode+=(-gencode "arch=compute_$arch,code=sm_$arch"); done
    "$nvcc" -fatbin "${gencode[@]}" -I "$include" -o "$work/cub.fatbin" "$work/cub.cu" ||
      fail "cub: nvcc failed"
    binary=(--kernels-from "$work/cub.fatbin")
  fi
  rm -rf "$work/out" "$work/cache_own"
  err=$(env -u CUBIND_GEN_PRELUDE_DIR CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$work/cache_own" \
        -I "$include" "${binary[@]}" -o "$work/out" "$work/cub.cu" 2>&1 >/dev/null) || fail "cub: $err"
  [[ $err =~ "(1 of 1 leading lines)" ]] || fail "cub: the build's CUB prelude ($archs) is not taken: $err"
  # a directory that holds what CCCL asks _CCCL_HAS_INCLUDE(<nvtx3/nvtx3.hpp>) about: not taken
  mkdir -p "$work/nvtx/nvtx3"
  : >"$work/nvtx/nvtx3/nvtx3.hpp"
  rm -rf "$work/out" "$work/cache_own"
  err=$(env -u CUBIND_GEN_PRELUDE_DIR CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$work/cache_own" \
        -I "$include" -I "$work/nvtx" "${binary[@]}" -o "$work/out" "$work/cub.cu" 2>&1 >/dev/null) ||
    fail "cub with nvtx3: $err"
  [[ $err =~ "(0 of 1 leading lines)" ]] ||
    fail "cub: the CUB prelude is taken though a -I directory holds nvtx3/nvtx3.hpp: $err"
  installed_checks+=" (and the build's own, CUB for $archs, not with a __has_include target"
  # own_run WHAT NAME TEXT: a fresh cache's run, with the build's own preludes, on NAME.cu of
  # TEXT (with nvcc's binary of it for $archs); both outputs must be the --no-cache run's; $err:
  # its stderr (the report)
  own_run() {
    local what=$1 name=$2 suffix
    printf '%s\n' "$3" >"$work/$name.cu"
    if [[ $archs != none ]]; then
      "$nvcc" -fatbin "${gencode[@]}" -I "$include" -o "$work/$name.fatbin" "$work/$name.cu" ||
        fail "$what: nvcc failed"
      binary=(--kernels-from "$work/$name.fatbin")
    fi
    rm -rf "$work/out" "$work/cache_own" "$work/expected_own"
    "$gen" --no-cache -I "$include" "${binary[@]}" -o "$work/expected_own" "$work/$name.cu" ||
      fail "$what: --no-cache run failed"
    err=$(env -u CUBIND_GEN_PRELUDE_DIR CUBIND_GEN_REPORT=1 "$gen" --cache-dir "$work/cache_own" \
          -I "$include" "${binary[@]}" -o "$work/out" "$work/$name.cu" 2>&1 >/dev/null) ||
      fail "$what: $err"
    for suffix in cubind.h cubind.c; do
      cmp -s "$work/out/$name.$suffix" "$work/expected_own/$name.$suffix" ||
        fail "$what: $name.$suffix differs from the --no-cache run's ($err)"
    done
  }
  # a group the .cu reads through the leads of its own headers (<cub/block/block_reduce.cuh>
  # includes <cub/config.cuh> and <cub/util_type.cuh> first), where the build made it
  if grep -qx 'cub/config.cuh,cub/util_type.cuh' "$own/groups" 2>/dev/null; then
    # block_group [LINE]: own_run on a .cu of LINE and <cub/block/block_reduce.cuh>; $taken: the
    # prelude it parsed with
    block_group() {
      own_run block block "$(printf '%s\n#include <cub/block/block_reduce.cuh>\n#include <cubind/annotations.h>\n%s' \
        "${1:-}" "$kernel")"
      taken=$(printf '%s\n' "$err" |
              sed -n 's/^cubind-gen: prelude \(prelude-[0-9a-f]*\.pch\) .*/\1/p')
    }
    block_group
    [[ -n $taken && $err =~ "(0 of 1 leading lines)" ]] && grep -q '/cub/util_type\.cuh$' "$own/$taken.files" ||
      fail "block: the build's prelude of <cub/config.cuh> and <cub/util_type.cuh> is not taken: $err"
    # a macro line before it that one of the group's headers names: the group is not taken
    block_group '#define CCCL_IGNORE_DEPRECATED_CPP_DIALECT'
    [[ -n $taken ]] && ! grep -q '/cub/util_type\.cuh$' "$own/$taken.files" ||
      fail "block: the group is taken though a held header names the .cu's macro: $err"
    installed_checks+=", a group read through the leads of the .cu's headers, not past its macro"
  fi
  # checked groups (prelude_cache.h: prelude_attempt): <thrust/transform.h>, which
  # <thrust/sort.h> reads only through macro-named #includes, is tried first and taken;
  # <thrust/fill.h> reaches macro-named #includes too but does not read it: the parse shows that,
  # and the run parses without it; the texts of <thrust/functional.h> show it unread: not tried
  # checked_group HEADER GROUP: own_run on a .cu of HEADER; $attempt: the prelude it tried first
  # if the parse reads GROUP (a checked group's first header), or nothing
  checked_group() {
    own_run "checked $1" checked "$(printf '#include <%s>\n#include <cubind/annotations.h>\n%s' "$1" "$kernel")"
    attempt=$(printf '%s\n' "$err" |
              sed -n "s|^cubind-gen: prelude \(prelude-[0-9a-f]*\.pch\) first, if the parse reads $2\$|\1|p")
  }
  # taken WHAT: fails unless $attempt was tried and the parse took it
  taken() {
    [[ -n $attempt && $err =~ "parse of the .cu"[^$'\n']*"prelude $attempt:" && ! $err =~ "not taken" ]] ||
      fail "checked $1: the checked group's prelude is not taken: $err"
  }
  if grep -qx 'checked thrust thrust/transform.h' "$own/groups" 2>/dev/null; then
    checked_group thrust/sort.h thrust/transform.h
    taken thrust/sort.h
    # the builder chains the whole list's prelude onto a prelude that needs no check
    for lock in "$work/cache_own"/prelude-*.lock; do flock "$lock" true; done
    if grep -l " $attempt\$" "$work/cache_own"/prelude-*.pch.sum >/dev/null 2>&1; then
      fail "checked thrust/sort.h: the builder chained the cache's prelude onto $attempt"
    fi
    checked_group thrust/fill.h thrust/transform.h
    [[ -n $attempt && $err =~ "prelude $attempt not taken: the parse does not show thrust/transform.h read" ]] ||
      fail "checked thrust/fill.h: <thrust/transform.h>'s prelude is not tried, or taken: $err"
    checked_group thrust/functional.h thrust/transform.h
    [[ -z $attempt ]] ||
      fail "checked thrust/functional.h: <thrust/transform.h>'s prelude is tried: $err"
    installed_checks+=", a checked group taken where the parse names it, not where it does not"
  fi
  # libcu++'s group: its public headers name only detail headers, with no macro-named #include
  if grep -q '^checked cuda cuda/std/__utility/move\.h,' "$own/groups" 2>/dev/null; then
    checked_group cuda/std/complex cuda/std/__utility/move.h
    taken cuda/std/complex
    checked_group cuda/std/limits cuda/std/__utility/move.h
    [[ -z $attempt ]] || fail "checked cuda/std/limits: libcu++'s group is tried: $err"
    installed_checks+=", libcu++'s taken where it is read, not tried where it is not"
  fi
  installed_checks+=")"
fi
echo "prelude_cache: fresh, warm, normalised, prefix, subsequence, damaged and changed caches; macro lines, local headers, lists left for a busy builder$prepared, C++20, seven toolkit headers in chains of four, $installed_checks: right prelude, same outputs"

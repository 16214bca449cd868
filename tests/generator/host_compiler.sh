#!/usr/bin/env bash
# host_compiler.sh: cubind-gen asks nvcc's host compiler (--host-compiler, nvcc's -ccbin) for its
# #include <...> directories and _OPENMP, and remembers the answer in its cache for as long as it
# holds (generator/host_compiler.c). A stand-in compiler counts its runs and lists directories of
# this test's own. Checks:
#   - the first run asks it; a header that only its directory holds is found, and its _OPENMP
#     reaches the parse (the .cu has an #error for any other value)
#   - later runs do not ask, until: its file changes, a directory it skipped as missing appears,
#     a directory it listed is gone, or CPLUS_INCLUDE_PATH is set (another record)
#   - a compiler that fails is asked every time; so is every one under --no-cache
#   - a directory (nvcc's -ccbin /usr/bin) is the gcc in it; one without gcc is an error
#   host_compiler.sh <cubind-gen> <work dir>
set -u
gen=$1 work=$2
rm -rf "$work"
mkdir -p "$work/inc" "$work/extra"
work=$(cd "$work" && pwd -P)
fail() { echo "host_compiler: $*" >&2; exit 1; }

# make_compiler NAME STATUS: a stand-in that lists inc and extra and skips `later` as missing
make_compiler() {
  cat >"$work/$1" <<EOF
#!/bin/sh
echo run >>"$work/$1.runs"
echo 'ignoring nonexistent directory "$work/later"' >&2
echo '#include <...> search starts here:' >&2
echo ' $work/inc' >&2
echo ' $work/extra' >&2
echo 'End of search list.' >&2
case " \$* " in *" -fopenmp "*) echo '#define _OPENMP 201811' ;; esac
exit $2
EOF
  chmod +x "$work/$1"
}
make_compiler cc 0
make_compiler failing 1
printf '#ifndef ONLY_HOST_H\n#define ONLY_HOST_H\ntypedef float host_elem;\n#endif\n' \
  >"$work/inc/only_host.h"
printf '%s\n' '#include <only_host.h>' '#if _OPENMP != 201811' '#error not the host compiler'"'"'s _OPENMP' \
  '#endif' 'extern "C" __global__ void k(host_elem *x) { x[0] = 1; }' >"$work/k.cu"

# run WHAT COMPILER [cubind-gen options]: a run that must bind k(float *)
run() {
  local what=$1 compiler=$2
  shift 2
  rm -rf "$work/out"
  "$gen" --host-compiler "$work/$compiler" "$@" --nvcc-options -Xcompiler -fopenmp -- \
    -o "$work/out" "$work/k.cu" >/dev/null 2>"$work/err" ||
    fail "$what: cubind-gen failed: $(cat "$work/err")"
  grep -q 'k_launch(const cubind_config \*cfg, float \*x)' "$work/out/k.cubind.h" ||
    fail "$what: k(float *) is not bound"
}
# expect_runs WHAT COMPILER N: the compiler has run N times in all
expect_runs() {
  local runs
  runs=$(cat "$work/$2.runs" 2>/dev/null | wc -l)
  [[ $runs -eq $3 ]] || fail "$1: the host compiler ran $runs times, not $3"
}
cache=(--cache-dir "$work/cache")

run "first run" cc "${cache[@]}"
expect_runs "first run" cc 1
ls "$work"/cache/host-*.txt >/dev/null 2>&1 || fail "no host compiler record in the cache"
run "second run" cc "${cache[@]}"
expect_runs "second run" cc 1

sleep 0.01
touch "$work/cc"
run "the compiler's file changed" cc "${cache[@]}"
expect_runs "the compiler's file changed" cc 2
run "after the compiler's file changed" cc "${cache[@]}"
expect_runs "after the compiler's file changed" cc 2

mkdir "$work/later"
run "a missing directory appeared" cc "${cache[@]}"
expect_runs "a missing directory appeared" cc 3
rmdir "$work/later"
run "it is missing again" cc "${cache[@]}"
expect_runs "it is missing again" cc 3

rmdir "$work/extra"
run "a listed directory is gone" cc "${cache[@]}"
expect_runs "a listed directory is gone" cc 4
mkdir "$work/extra"
run "it is back" cc "${cache[@]}"
expect_runs "it is back" cc 4

CPLUS_INCLUDE_PATH=$work/inc run "CPLUS_INCLUDE_PATH set" cc "${cache[@]}"
expect_runs "CPLUS_INCLUDE_PATH set" cc 5
CPLUS_INCLUDE_PATH=$work/inc run "CPLUS_INCLUDE_PATH set again" cc "${cache[@]}"
expect_runs "CPLUS_INCLUDE_PATH set again" cc 5
run "CPLUS_INCLUDE_PATH unset" cc "${cache[@]}"
expect_runs "CPLUS_INCLUDE_PATH unset" cc 5

run "a failing compiler" failing "${cache[@]}"
run "a failing compiler again" failing "${cache[@]}"
expect_runs "a failing compiler" failing 2

run "--no-cache" cc --no-cache
run "--no-cache again" cc --no-cache
expect_runs "--no-cache" cc 7

# a directory, as nvcc takes one for -ccbin: the gcc in it (not g++ or another compiler)
mkdir -p "$work/bin" "$work/no_gcc"
make_compiler bin/gcc 0
make_compiler no_gcc/g++ 0
run "a directory" bin --no-cache
expect_runs "a directory" bin/gcc 1
rm -rf "$work/out"
"$gen" --nvcc-options -ccbin "$work/bin/" -Xcompiler -fopenmp -- --no-cache -o "$work/out" \
  "$work/k.cu" >/dev/null 2>"$work/err" || fail "-ccbin DIR/: cubind-gen failed: $(cat "$work/err")"
expect_runs "-ccbin DIR/" bin/gcc 2
"$gen" --nvcc-options -ccbin "$work/no_gcc" -- --no-cache -o "$work/out" "$work/k.cu" \
  >/dev/null 2>"$work/err"
status=$?
[[ $status -eq 1 ]] || fail "a directory without gcc: exit status $status, not 1"
grep -q "error: the host compiler '$work/no_gcc' (nvcc's -ccbin, --host-compiler) is a directory \
without gcc: nvcc runs '$work/no_gcc/gcc'" "$work/err" ||
  fail "a directory without gcc: $(cat "$work/err")"
expect_runs "a directory without gcc" no_gcc/g++ 0
echo "host_compiler: passed"

#!/usr/bin/env bash
# run.sh: builds one libFuzzer harness with clang (-fsanitize=fuzzer,address,undefined) and runs
# it for a while; exits 77 ("skipped: ...") when no clang with libFuzzer is installed.
#   tests/fuzz/run.sh HARNESS SECONDS WORK_DIR TEMPLATES_C [libFuzzer options...]
# HARNESS: model (no libclang: check + emit + fatbin embedder, thousands of inputs a second)
#          generate (parse -> check -> emit in-process through libclang; tens a second)
#          binary (the fatbin/cubin reader behind --kernels-from, and the demangler)
#          paths (the check that no output is an input or another output, against the file
#          system: a scratch tree of directories, symlinks and a hard link)
#          pp_text (the #if conditions the prelude cache evaluates without a preprocessor)
# TEMPLATES_C is the build's generator/templates.c (the embedded templates). The corpus grows
# in WORK_DIR/corpus-HARNESS; seeds come from tests/fuzz/seeds-HARNESS (model, binary, pp_text)
# or tests/generator/fixtures (generate). A crash leaves WORK_DIR/crash-* (the input) and fails.
# Environment: CUBIND_FUZZ_CC (a clang), CUBIND_LLVM_DIR (libclang, default /usr/lib/llvm-19).
set -euo pipefail
harness=$1 seconds=$2 work=$3 templates=$4
shift 4
root=$(cd "$(dirname "$0")/../.." && pwd)
llvm=${CUBIND_LLVM_DIR:-/usr/lib/llvm-19}

mkdir -p "$work"
# the first clang that links a libFuzzer program (clang-19 without libclang-rt-19-dev does not)
links_fuzzer() {
  command -v "$1" >/dev/null &&
    echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
    "$1" -x c -fsanitize=fuzzer,address,undefined -o "$work/probe" - 2>/dev/null
}
cc=
for candidate in ${CUBIND_FUZZ_CC:-clang-19 clang-18 clang-17 clang-16 clang-15 clang-14 clang}; do
  if links_fuzzer "$candidate"; then cc=$candidate; break; fi
done
if [ -z "$cc" ]; then
  echo "fuzz.$harness: skipped: no clang with libFuzzer (apt-get install clang-19 libclang-rt-19-dev)"
  exit 77
fi

flags=(-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -g -O1
       -DCUBIND_GEN_VERSION='"fuzz"' -D_XOPEN_SOURCE=700 -I"$root/generator"
       -I"$root/runtime/include" -I"$root/common")
# generator/CMakeLists.txt's CUBIND_GEN_CORE_SOURCES (no libclang) and CUBIND_GEN_PARSE_SOURCES,
# as the build wrote them beside templates.c
core=() parse=()
while read -r list files; do
  for f in $files; do
    if [ "$list" = core ]; then core+=("$root/generator/$f"); else parse+=("$root/generator/$f"); fi
  done
done <"$(dirname "$templates")/sources.txt"
core+=("$templates")
libs=(-lzstd -llz4 -lstdc++) # binary.c: compressed cubins, the C++ runtime's demangler
bin=$work/fuzz_$harness
corpus=$work/corpus-$harness
mkdir -p "$corpus"
case $harness in
  model)
    "$cc" "${flags[@]}" "$root/tests/fuzz/fuzz_model.c" "${core[@]}" "${libs[@]}" -o "$bin"
    seeds=("$root/tests/fuzz/seeds-model")
    extra=(-max_len=4096)
    ;;
  generate)
    "$cc" "${flags[@]}" -I"$llvm/include" -DCUBIND_FUZZ_DEFAULT_INCLUDE="\"$root/runtime/include\"" \
      "$root/tests/fuzz/fuzz_generate.c" "${parse[@]}" "${core[@]}" \
      -L"$llvm/lib" -lclang "${libs[@]}" -Wl,-rpath,"$llvm/lib" -o "$bin"
    seeds=("$root/tests/generator/fixtures" "$root/tests/generator/fixtures/errors"
           "$root/tests/corpus")
    extra=(-dict="$root/tests/fuzz/cuda.dict" -timeout=30 -max_len=8192)
    export CUBIND_FUZZ_CACHE=$work/prelude-cache
    mkdir -p "$CUBIND_FUZZ_CACHE" # (the harness does not make it: without it, no prelude at all)
    # libclang parses and saves on threads of its own; ASan cannot unmap such a thread's
    # alternate signal stack when it ends ("failed to deallocate"), so it parses on ours
    export LIBCLANG_NOTHREADS=1
    ;;
  binary)
    "$cc" "${flags[@]}" "$root/tests/fuzz/fuzz_binary.c" "$root/generator/binary.c" \
      "$root/generator/util.c" "${libs[@]}" -o "$bin"
    seeds=("$root/tests/fuzz/seeds-binary")
    extra=(-max_len=65536)
    ;;
  paths)
    "$cc" "${flags[@]}" "$root/tests/fuzz/fuzz_paths.c" "${core[@]}" "${libs[@]}" -o "$bin"
    seeds=()
    extra=(-max_len=64)
    ;;
  pp_text)
    "$cc" "${flags[@]}" "$root/tests/fuzz/fuzz_pp_text.c" "$root/generator/pp_text.c" \
      "$root/generator/util.c" -o "$bin"
    seeds=("$root/tests/fuzz/seeds-pp_text")
    extra=(-max_len=4096)
    ;;
  *) echo "run.sh: unknown harness '$harness'" >&2; exit 2 ;;
esac
existing=()
for dir in "${seeds[@]+"${seeds[@]}"}"; do [ -d "$dir" ] && existing+=("$dir"); done

# Leaks: LeakSanitizer is on; libclang's own process-lifetime allocations are suppressed (see
# scripts/lsan.supp). Diagnostics for bad inputs go to stderr: keep only libFuzzer's lines.
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
log=$work/fuzz_$harness.log
status=0
"$bin" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/" "${extra[@]}" \
  "$@" "$corpus" "${existing[@]+"${existing[@]}"}" >"$log" 2>&1 || status=$?
grep -E '^(#[0-9]+ +(INITED|DONE)|Done |stat::|==[0-9]+==|SUMMARY|.*runtime error|.*deadly signal|artifact_prefix|Test unit written)' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "fuzz.$harness: FAILED (exit $status); the input is in $work/ (crash-*, leak-*, timeout-*)"
  tail -60 "$log"
  exit 1
fi
echo "fuzz.$harness: no crash, hang or sanitizer report in ${seconds} s"

#!/usr/bin/env bash
# callgrind_launch.sh: instructions per launch (valgrind --tool=callgrind, CPU only, against the
# fake driver of tests/runtime): the generated-style stub vs a direct cuLaunchKernel call.
#
#   bench/callgrind_launch.sh BUILD_DIR [RUNTIME_SRC_DIR] [N]
#
# BUILD_DIR holds tests/runtime/libfake_cuda.so (a configured, built tree). RUNTIME_SRC_DIR
# (default runtime/src) is compiled with -O3 -DNDEBUG, as a Release build does, so an older copy
# of the sources can be compared ("before/after"). Prints Ir per launch for each loop.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: callgrind_launch.sh BUILD_DIR [RUNTIME_SRC_DIR] [N]}" && pwd)
src=$(cd "${2:-$root/runtime/src}" && pwd)
n=${3:-20000}
fake=$build/tests/runtime/libfake_cuda.so
cuda=${CUDA_PATH:-/usr/local/cuda}
export CUBIND_DRIVER_LIBRARY=$fake
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -std=gnu99 -O3 -DNDEBUG -fvisibility=hidden -I"$root/runtime/include" -I"$src" -I"$root/common" \
  -isystem "$cuda/include" -o "$tmp/cg" "$root/bench/callgrind_launch.c" "$src"/*.c -ldl -lpthread
per_launch() { # mode loop-function
  valgrind --tool=callgrind --collect-atstart=no --toggle-collect="$2" \
    --callgrind-out-file="$tmp/out.$2" "$tmp/cg" "$1" "$n" >/dev/null 2>&1 \
    || { echo "callgrind run $1 failed" >&2; exit 1; }
  ir=$(grep -E '^(summary|totals):' "$tmp/out.$2" | head -1 | awk '{print $2}')
  awk -v ir="$ir" -v n="$n" 'BEGIN { printf "%.1f", ir / n }'
}
s0=$(per_launch stub loop_stub0); s2=$(per_launch stub loop_stub2)
r0=$(per_launch raw loop_raw0); r2=$(per_launch raw loop_raw2)
c0=$(per_launch ctx_raw loop_ctx_raw0)
echo "instructions per launch (callgrind Ir, fake driver, $n launches, runtime from $src)"
printf '%-28s %10s %10s\n' "" "0 params" "2 params"
printf '%-28s %10s %10s\n' "stub (cubind_module_launch)" "$s0" "$s2"
printf '%-28s %10s %10s\n' "raw cuLaunchKernel" "$r0" "$r2"
printf '%-28s %10s\n' "cuCtxGetCurrent+cuLaunch" "$c0"
awk -v s0="$s0" -v s2="$s2" -v r0="$r0" -v r2="$r2" -v c0="$c0" 'BEGIN {
  printf "%-28s %10.1f %10.1f\n", "stub - raw", s0 - r0, s2 - r2
  printf "%-28s %10.1f\n", "stub - (ctx+raw)", s0 - c0 }'

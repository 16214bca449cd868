#!/usr/bin/env bash
# generator_speed.sh: cubind-gen's cost against nvcc's on the same file (issue 2's speed
# targets: at most half of `nvcc -fatbin` for one architecture; 1,000 kernels under 2 s).
#
#   bench/generator_speed.sh [cubind-gen (default: build-gen/generator/cubind-gen)]
#
# CPU only. Files: three generator test fixtures (plain, fp16/bf16 headers, cub +
# cooperative_groups) and a generated file of 1,000 kernels. Each step is timed once with
# /usr/bin/time (wall seconds). cubind-gen runs twice: with --no-cache (every header parsed)
# and with a warm prelude cache (the CUDA headers clang includes first, precompiled once).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
gen=${1:-$src/build-gen/generator/cubind-gen}
nvcc=${CUBIND_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[[ -x $gen ]] || { echo "generator_speed.sh: $gen not found (build cubind-gen first)" >&2; exit 1; }
[[ -x $nvcc ]] || { echo "generator_speed.sh: $nvcc not found" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inc=$src/runtime/include

# wall <command...>: prints the command's wall time in seconds (fails the script if it fails).
wall() {
  /usr/bin/time -f %e -o "$work/time" "$@" >"$work/log" 2>&1 || {
    echo "generator_speed.sh: failed: $*" >&2; cat "$work/log" >&2; exit 1; }
  cat "$work/time"
}

# 1,000 kernels with a mix of parameter kinds and annotations.
{
  echo '#include <cubind/annotations.h>'
  for ((i = 0; i < 1000; i++)); do
    echo "/** Kernel $i. */"
    echo "__global__ void k$i(CUBIND_INOUT_N(n) float *a, const int *__restrict__ b, double s, int n) {"
    echo "  int t = threadIdx.x; if (t < n) a[t] = a[t] * s + b[t];"
    echo "}"
  done
} >"$work/many_kernels.cu"

"$gen" --cache-dir "$work/cache" -I "$inc" -o "$work/warmup" "$src/tests/generator/fixtures/doublify.cu"
printf '%-18s %8s %14s %8s %14s %8s\n' file "nvcc s" "gen no-cache s" "ratio" "gen cached s" "ratio"
for file in "$src/tests/generator/fixtures/doublify.cu" "$src/tests/generator/fixtures/half.cu" \
            "$src/tests/generator/fixtures/toolkit_headers.cu" "$work/many_kernels.cu"; do
  name=$(basename "$file" .cu)
  t_nvcc=$(wall "$nvcc" -fatbin -arch=sm_90 -I"$inc" -o "$work/$name.fatbin" "$file")
  t_cold=$(wall "$gen" --no-cache -I "$inc" -o "$work/out" "$file")
  rm -rf "$work/out"
  t_warm=$(wall "$gen" --cache-dir "$work/cache" -I "$inc" -o "$work/out" "$file")
  awk -v f="$name" -v a="$t_nvcc" -v b="$t_cold" -v c="$t_warm" \
    'BEGIN {printf "%-18s %8.2f %14.2f %8.2f %14.2f %8.2f\n", f, a, b, (a > 0 ? b / a : 0), c, (a > 0 ? c / a : 0)}'
done
t_embed=$(wall "$gen" --embed-fatbin "$work/many_kernels.fatbin" --module-name many -o "$work/out")
echo "embed many_kernels.fatbin ($(stat -c %s "$work/many_kernels.fatbin") bytes): ${t_embed} s"
head -c 16000000 /dev/urandom >"$work/big.bin"
t_embed=$(wall "$gen" --embed-fatbin "$work/big.bin" --module-name big -o "$work/out")
echo "embed a 16 MB file: ${t_embed} s"
echo "($(nproc) CPUs; $("$gen" --version | tail -1); $("$nvcc" --version | tail -1))"

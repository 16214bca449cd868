#!/usr/bin/env bash
# gen_time.sh: what cubind adds to a build: cubind-gen's time per .cu file against nvcc -fatbin
# on the same file, the embedding step, and a regeneration when nothing changed.
#
#   bench/gen_time.sh <build dir> [runs (default 3)] [out dir]
#
# CPU only: run it on the build machine (cubind-gen needs libclang, which GPU machines may lack).
# Files: bench/kernels/bench_kernels.cu (4 kernels), <build>/bench/many/many_kernels.cu (2000
# kernels, written by bench/CMakeLists.txt), tests/gpu/implicit.cu (14 kernels, 12 of them
# template specialisations that only host code instantiates), bench/kernels/coop_groups.cu
# (<cuda_runtime.h> and <cooperative_groups.h> first) and bench/kernels/cub_heavy.cu (CUB:
# thousands of headers; its DeviceReduce kernels named by the binary only). Steps, median
# wall time of `runs` each:
#   nvcc_fatbin     nvcc -fatbin for sm_90 (what add_gpu_kernels runs anyway, cubind or not)
#   gen_cold        cubind-gen --kernels-from the fatbin (as add_gpu_kernels runs it) with an
#                   empty cache, as in the first build in a new build tree: no precompiled
#                   prelude (clang's CUDA headers and the toolkit headers the .cu includes
#                   first) yet; a detached builder makes it meanwhile (waited for after the run)
#   gen_new_key     the same with only the base prelude (clang's CUDA headers) cached: the first
#                   .cu with this list of leading toolkit headers in a build tree that has built
#                   others (it parses with the base prelude; the builder makes this list's)
#   gen_fresh       cubind-gen into an empty directory (parse + emit + write), the cache warm
#                   (without --kernels-from: its own option set, warmed by a run before)
#   gen_binary      the same with --kernels-from the fatbin, as add_gpu_kernels runs it (reads
#                   the cubins; resolves the kernels the source does not name in a second parse;
#                   its prelude warmed by one run before: the binary's architecture list is
#                   another option set)
#   gen_unchanged   cubind-gen again on the unchanged file (parse + compare; writes nothing)
#   embed_fatbin    cubind-gen --embed-fatbin of the fatbin (writes the byte-array .c)
# Reading the numbers: gen_binary / nvcc_fatbin is cubind's share of the kernel build time with
# a warm cache; gen_cold and gen_new_key / nvcc_fatbin with a cold one (issue 16: at most 0.5).
# Output: a table on stdout and, with an out dir, <out>/gen_time.csv in the suite's format.
set -u
build=${1:?usage: gen_time.sh <build dir> [runs] [out dir]}
runs=${2:-3}
out=${3:-}
src=$(cd "$(dirname "$0")/.." && pwd)
gen=$build/generator/cubind-gen
nvcc=${CUBIND_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
cuda=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
for f in "$gen" "$nvcc"; do
  [[ -x $f ]] || { echo "gen_time.sh: $f not found" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now_us() { local t=${EPOCHREALTIME/[.,]/}; echo "$t"; }
median() { sort -n | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# timed <command...>: runs it (output to the log; stops the script on failure), prints us.
timed() {
  local t0 t1
  t0=$(now_us)
  if ! "$@" >"$work/log" 2>&1; then
    echo "gen_time.sh: failed: $*" >&2
    cat "$work/log" >&2
    exit 1
  fi
  t1=$(now_us)
  echo $((t1 - t0))
}

# wait_builder: waits until no detached prelude builder works in the cache (each holds its
# option set's prelude-<key>.lock), so that it does not run into the next timed step.
wait_builder() {
  local lock
  for lock in "$work/cache"/prelude-*.lock; do
    [[ -e $lock ]] && flock "$lock" true
  done
}

csv="benchmark,case,variant,metric,value,unit"$'\n'
printf '%-16s %10s %10s %10s %10s %13s %13s %10s %10s %10s %10s %14s\n' file "nvcc ms" "cold ms" \
  "new key ms" "gen ms" "gen+bin ms" "unchanged ms" "embed ms" "cold/nvcc" "new/nvcc" \
  "gen/nvcc" "gen+bin/nvcc"
for file in "$src/bench/kernels/bench_kernels.cu" "$build/bench/many/many_kernels.cu" \
            "$src/tests/gpu/implicit.cu" "$src/bench/kernels/coop_groups.cu" \
            "$src/bench/kernels/cub_heavy.cu"; do
  [[ -f $file ]] || { echo "gen_time.sh: $file not found (configure the build first)" >&2; exit 1; }
  name=$(basename "$file" .cu)
  declare -a t_nvcc=() t_cold=() t_new_key=() t_fresh=() t_binary=() t_same=() t_embed=()
  for ((r = 0; r < runs; r++)); do
    rm -rf "$work/out" && mkdir -p "$work/out"
    t_nvcc+=("$(timed "$nvcc" -fatbin -gencode arch=compute_90,code=sm_90 -I"$src/runtime/include" \
      -o "$work/out/$name.fatbin" "$file")")
    rm -rf "$work/cache"
    t_cold+=("$(timed "$gen" -I"$src/runtime/include" --cuda-path "$cuda" --module-name "$name" \
      --cache-dir "$work/cache" --kernels-from "$work/out/$name.fatbin" -o "$work/out" "$file")")
    wait_builder
    # keep only the base prelude (named as the builder's lock): this list's is not built yet
    for pch in "$work/cache"/prelude-*.pch; do
      [[ -e ${pch%.pch}.lock ]] || rm -f "$pch" "$pch".*
    done
    rm -f "$work/out/$name.cubind."*
    t_new_key+=("$(timed "$gen" -I"$src/runtime/include" --cuda-path "$cuda" --module-name "$name" \
      --cache-dir "$work/cache" --kernels-from "$work/out/$name.fatbin" -o "$work/out" "$file")")
    wait_builder
    rm -rf "$work/cache" # the cases below as before: the first run builds what they use
    "$gen" -I"$src/runtime/include" --cuda-path "$cuda" --module-name "$name" \
      --cache-dir "$work/cache" -o "$work/out" "$file" >/dev/null 2>&1
    wait_builder
    rm -f "$work/out/$name.cubind."*
    t_fresh+=("$(timed "$gen" -I"$src/runtime/include" --cuda-path "$cuda" --module-name "$name" \
      --cache-dir "$work/cache" -o "$work/out" "$file")")
    t_same+=("$(timed "$gen" -I"$src/runtime/include" --cuda-path "$cuda" --module-name "$name" \
      --cache-dir "$work/cache" -o "$work/out" "$file")")
    # warm the prelude of this option set first (the binary adds __CUDA_ARCH_LIST__, as nvcc
    # defines it: another key), as every .cu after the first in a build finds it
    timed "$gen" -I"$src/runtime/include" --cuda-path "$cuda" --module-name "$name" \
      --cache-dir "$work/cache" --kernels-from "$work/out/$name.fatbin" -o "$work/out" "$file" \
      >/dev/null
    wait_builder
    rm -f "$work/out/$name.cubind."*
    t_binary+=("$(timed "$gen" -I"$src/runtime/include" --cuda-path "$cuda" --module-name "$name" \
      --cache-dir "$work/cache" --kernels-from "$work/out/$name.fatbin" -o "$work/out" "$file")")
    t_embed+=("$(timed "$gen" --embed-fatbin "$work/out/$name.fatbin" --module-name "$name" \
      -o "$work/out")")
  done
  m_nvcc=$(printf '%s\n' "${t_nvcc[@]}" | median)
  m_cold=$(printf '%s\n' "${t_cold[@]}" | median)
  m_new_key=$(printf '%s\n' "${t_new_key[@]}" | median)
  m_fresh=$(printf '%s\n' "${t_fresh[@]}" | median)
  m_binary=$(printf '%s\n' "${t_binary[@]}" | median)
  m_same=$(printf '%s\n' "${t_same[@]}" | median)
  m_embed=$(printf '%s\n' "${t_embed[@]}" | median)
  awk -v f="$name" -v a="$m_nvcc" -v k="$m_cold" -v n="$m_new_key" -v b="$m_fresh" -v e="$m_binary" -v c="$m_same" -v d="$m_embed" \
    'BEGIN {printf "%-16s %10.1f %10.1f %10.1f %10.1f %13.1f %13.1f %10.1f %10.3f %10.3f %10.3f %14.3f\n", f, a / 1000, k / 1000, n / 1000, b / 1000, e / 1000, c / 1000, d / 1000, k / a, n / a, b / a, e / a}'
  for pair in nvcc_fatbin:$m_nvcc gen_cold:$m_cold gen_new_key:$m_new_key gen_fresh:$m_fresh gen_binary:$m_binary gen_unchanged:$m_same \
              embed_fatbin:$m_embed; do
    csv+="gen_time,$name,${pair%%:*},wall_ms_median,$(awk -v v="${pair#*:}" 'BEGIN {printf "%.3f", v / 1000}'),ms"$'\n'
  done
done
echo "(median of $runs runs; $(nproc) CPUs; $("$nvcc" --version | tail -1))"
if [[ -n $out ]]; then
  mkdir -p "$out"
  printf '%s' "$csv" >"$out/gen_time.csv"
  echo "results written to $out/gen_time.csv"
fi

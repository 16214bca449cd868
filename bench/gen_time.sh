#!/usr/bin/env bash
# gen_time.sh: what cubind adds to a build: cubind-gen's time per .cu file against nvcc -fatbin
# on the same file, the embedding step, and a regeneration when nothing changed.
#
#   bench/gen_time.sh <build dir> [runs (default 3)] [out dir] [tables (default files,corpus)]
#
# CPU only: run it on the build machine (cubind-gen needs libclang, which GPU machines may lack).
# Files: bench/kernels/bench_kernels.cu (4 kernels), <build>/bench/many/many_kernels.cu (2000
# kernels, written by bench/CMakeLists.txt), tests/gpu/implicit.cu (14 kernels, 12 of them
# template specialisations that only host code instantiates), bench/kernels/coop_groups.cu
# (<cuda_runtime.h> and <cooperative_groups.h> first) and bench/kernels/cub_heavy.cu (CUB:
# thousands of headers; its DeviceReduce kernels named by the binary only). Steps, median
# wall time of `runs` each:
#   nvcc_fatbin     nvcc -fatbin for sm_90 (what add_gpu_kernels runs anyway, cubind or not)
#   gen_bare        cubind-gen --kernels-from the fatbin (as add_gpu_kernels runs it) with an
#                   empty cache and no installed preludes (CUBIND_GEN_PRELUDE_DIR empty), as in
#                   the first build in a new build tree of a cubind built without them: no
#                   precompiled prelude (clang's CUDA headers and the toolkit headers the .cu
#                   includes first) yet; a detached builder makes it meanwhile (waited for)
#   gen_cold        the same with the installed preludes this build made (<build>/share/cubind/
#                   preludes: clang's CUDA headers, CUB, Thrust, cooperative groups)
#   gen_new_key     the same with only the base prelude (clang's CUDA headers) cached: the first
#                   .cu with this list of leading toolkit headers in a build tree that has built
#                   others (it parses with the base prelude; the builder makes this list's)
#   gen_fresh       cubind-gen into an empty directory (parse + emit + write), the cache warm
#                   (without --kernels-from: its own option set, warmed by a run before)
#   gen_binary      the same with --kernels-from the fatbin, as add_gpu_kernels runs it (reads
#                   the cubins; the kernels the source does not name are resolved by lines its
#                   parse appends; its prelude warmed by one run before: the binary's
#                   architecture list is another option set)
#   gen_unchanged   cubind-gen again on the unchanged file (parse + compare; writes nothing)
#   embed_fatbin    cubind-gen --embed-fatbin of the fatbin (writes the byte-array .c)
# Reading the numbers: gen_binary / nvcc_fatbin is cubind's share of the kernel build time with
# a warm cache; gen_bare, gen_cold and gen_new_key / nvcc_fatbin with a cold one (issue 16: at
# most 0.5).
# A second table runs the files of bench/kernels/corpus (shaped like public code: standard and
# toolkit headers in varied orders, a #define first, a local header, OpenMP host code) as a
# build tree meets them: in order, one option set (-Xcompiler -fopenmp), one cache, each
# cubind-gen --kernels-from timed right after its nvcc -fatbin, the builders left to run in the
# background as a build leaves them:
#   first, bare     the cache empty at the first file, no installed preludes
#   first build     the same with the installed preludes
#   rebuild         the same files again (the builders waited for): an edit-and-rebuild
#   other target    the files again with an -I directory and a -D macro of their own (another
#                   target or project: a new option set), the cache the first two passes left
# per file the ratio gen / nvcc of each repetition: median, min and max over `runs`.
# Output: tables on stdout and, with an out dir, <out>/gen_time.csv in the suite's format.
set -u
build=${1:?usage: gen_time.sh <build dir> [runs] [out dir]}
runs=${2:-3}
out=${3:-}
tables=,${4:-files,corpus},
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
# stats VALUES...: their median, min and max
stats() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR]}'; }
# median: the median of the values on stdin
median() { local m; read -r m _ <<<"$(stats $(cat))"; echo "$m"; }

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
# files_table: the first table (the files above, step by step)
files_table() {
  printf '%-16s %10s %10s %10s %10s %10s %13s %13s %10s %10s %10s %10s %10s %14s\n' file "nvcc ms" \
    "bare ms" "cold ms" "new key ms" "gen ms" "gen+bin ms" "unchanged ms" "embed ms" "bare/nvcc" \
    "cold/nvcc" "new/nvcc" "gen/nvcc" "gen+bin/nvcc"
  for file in "$src/bench/kernels/bench_kernels.cu" "$build/bench/many/many_kernels.cu" \
              "$src/tests/gpu/implicit.cu" "$src/bench/kernels/coop_groups.cu" \
              "$src/bench/kernels/cub_heavy.cu"; do
    [[ -f $file ]] || { echo "gen_time.sh: $file not found (configure the build first)" >&2; exit 1; }
    name=$(basename "$file" .cu)
    declare -a t_nvcc=() t_bare=() t_cold=() t_new_key=() t_fresh=() t_binary=() t_same=() t_embed=()
    for ((r = 0; r < runs; r++)); do
      rm -rf "$work/out" && mkdir -p "$work/out"
      t_nvcc+=("$(timed "$nvcc" -fatbin -gencode arch=compute_90,code=sm_90 -I"$src/runtime/include" \
        -o "$work/out/$name.fatbin" "$file")")
      rm -rf "$work/cache"
      t_bare+=("$(CUBIND_GEN_PRELUDE_DIR= timed "$gen" -I"$src/runtime/include" --cuda-path "$cuda" \
        --module-name "$name" --cache-dir "$work/cache" --kernels-from "$work/out/$name.fatbin" \
        -o "$work/out" "$file")")
      wait_builder
      rm -rf "$work/cache" "$work/out/$name.cubind."*
      t_cold+=("$(timed "$gen" -I"$src/runtime/include" --cuda-path "$cuda" --module-name "$name" \
        --cache-dir "$work/cache" --kernels-from "$work/out/$name.fatbin" -o "$work/out" "$file")")
      wait_builder
      # keep only the base prelude (chained onto none: two checksums in its .sum): this list's
      # is not built yet
      for pch in "$work/cache"/prelude-*.pch; do
        [[ -e $pch ]] || continue # nothing cached: the installed preludes served it
        grep -q '^[0-9a-f]* [0-9a-f]*$' "$pch.sum" || rm -f "$pch" "$pch".*
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
    m_bare=$(printf '%s\n' "${t_bare[@]}" | median)
    m_cold=$(printf '%s\n' "${t_cold[@]}" | median)
    m_new_key=$(printf '%s\n' "${t_new_key[@]}" | median)
    m_fresh=$(printf '%s\n' "${t_fresh[@]}" | median)
    m_binary=$(printf '%s\n' "${t_binary[@]}" | median)
    m_same=$(printf '%s\n' "${t_same[@]}" | median)
    m_embed=$(printf '%s\n' "${t_embed[@]}" | median)
    awk -v f="$name" -v a="$m_nvcc" -v x="$m_bare" -v k="$m_cold" -v n="$m_new_key" -v b="$m_fresh" -v e="$m_binary" -v c="$m_same" -v d="$m_embed" \
      'BEGIN {printf "%-16s %10.1f %10.1f %10.1f %10.1f %10.1f %13.1f %13.1f %10.1f %10.3f %10.3f %10.3f %10.3f %14.3f\n", f, a / 1000, x / 1000, k / 1000, n / 1000, b / 1000, e / 1000, c / 1000, d / 1000, x / a, k / a, n / a, b / a, e / a}'
    for pair in nvcc_fatbin:$m_nvcc gen_bare:$m_bare gen_cold:$m_cold gen_new_key:$m_new_key gen_fresh:$m_fresh gen_binary:$m_binary gen_unchanged:$m_same \
                embed_fatbin:$m_embed; do
      csv+="gen_time,$name,${pair%%:*},wall_ms_median,$(awk -v v="${pair#*:}" 'BEGIN {printf "%.3f", v / 1000}'),ms"$'\n'
    done
  done
  echo "(median of $runs runs; $(nproc) CPUs; $("$nvcc" --version | tail -1))"
}

corpus=$src/bench/kernels/corpus
corpus_files=(saxpy_host block_sum_cub cg_reduce thrust_transform omp_host wmma_half curand_walk
              thrust_sort_ptr thrust_functional block_scan_cub device_reduce define_first
              local_header cub_reordered cg_half block_reduce_cub thrust_device_sort
              instantiated_mix libcudacxx_views)
declare -A ratios=() gen_ms=() nvcc_ms=() # [pass,file]: one value per repetition

# corpus_pass PASS [OPTION...]: nvcc, then cubind-gen, on every corpus file in order, into one
# cache, both with the options
corpus_pass() {
  local pass=$1 name t_n t_g
  shift
  for name in "${corpus_files[@]}"; do
    rm -f "$work/out/$name".*
    t_n=$(timed "$nvcc" -fatbin -gencode arch=compute_90,code=sm_90 -Xcompiler -fopenmp "$@" \
      -o "$work/out/$name.fatbin" "$corpus/$name.cu") || exit 1
    t_g=$(timed "$gen" --cuda-path "$cuda" --cache-dir "$work/cache" \
      --nvcc-options -Xcompiler -fopenmp "$@" -- --kernels-from "$work/out/$name.fatbin" \
      -o "$work/out" "$corpus/$name.cu") || exit 1
    ratios[$pass,$name]+="$(awk -v g="$t_g" -v n="$t_n" 'BEGIN {printf "%.4f", g / n}') "
    gen_ms[$pass,$name]+="$t_g "
    nvcc_ms[$pass,$name]+="$t_n "
  done
}

# corpus_table: the second table (bench/kernels/corpus as a build tree meets it)
corpus_table() {
  local r name
  for ((r = 0; r < runs; r++)); do
    rm -rf "$work/cache" "$work/out" && mkdir -p "$work/out"
    CUBIND_GEN_PRELUDE_DIR= corpus_pass bare
    wait_builder
    rm -rf "$work/cache"
    corpus_pass first
    wait_builder
    corpus_pass rebuild
    wait_builder
    # another target or project: its own -I directory and macro, the cache the first's
    mkdir -p "$work/other_include"
    corpus_pass other -I "$work/other_include" -DCUBIND_BENCH_OTHER_TARGET=1
    wait_builder
  done
  echo
  echo "bench/kernels/corpus as a build tree meets it (gen/nvcc: median [min-max] of $runs;"
  echo "other target: the files again with their own -I and -D, the cache the first build's):"
  printf '%-18s %9s %22s %14s %22s %14s %22s %22s\n' file "nvcc ms" "bare first gen/nvcc" \
    "first gen ms" "first gen/nvcc" "rebuild gen ms" "rebuild gen/nvcc" "other target gen/nvcc"
  worst_bare=0 worst_first=0 worst_rebuild=0 worst_other=0
  for name in "${corpus_files[@]}"; do
    read -r n_med _ _ <<<"$(stats ${nvcc_ms[first,$name]})"
    read -r rb_med rb_min rb_max <<<"$(stats ${ratios[bare,$name]})"
    read -r gf_med _ _ <<<"$(stats ${gen_ms[first,$name]})"
    read -r rf_med rf_min rf_max <<<"$(stats ${ratios[first,$name]})"
    read -r gr_med _ _ <<<"$(stats ${gen_ms[rebuild,$name]})"
    read -r rr_med rr_min rr_max <<<"$(stats ${ratios[rebuild,$name]})"
    read -r ro_med ro_min ro_max <<<"$(stats ${ratios[other,$name]})"
    awk -v f="$name" -v n="$n_med" -v gf="$gf_med" -v a="$rf_med" -v b="$rf_min" -v c="$rf_max" \
        -v gr="$gr_med" -v d="$rr_med" -v e="$rr_min" -v g="$rr_max" -v h="$ro_med" \
        -v i="$ro_min" -v j="$ro_max" -v k="$rb_med" -v l="$rb_min" -v m="$rb_max" \
      'BEGIN {printf "%-18s %9.1f %8.2f [%.2f-%.2f] %14.1f %8.2f [%.2f-%.2f] %14.1f %8.2f [%.2f-%.2f] %8.2f [%.2f-%.2f]\n", f, n / 1000, k, l, m, gf / 1000, a, b, c, gr / 1000, d, e, g, h, i, j}'
    worst_bare=$(awk -v a="$worst_bare" -v b="$rb_med" 'BEGIN {print (b > a ? b : a)}')
    worst_first=$(awk -v a="$worst_first" -v b="$rf_med" 'BEGIN {print (b > a ? b : a)}')
    worst_rebuild=$(awk -v a="$worst_rebuild" -v b="$rr_med" 'BEGIN {print (b > a ? b : a)}')
    worst_other=$(awk -v a="$worst_other" -v b="$ro_med" 'BEGIN {print (b > a ? b : a)}')
    for pair in first_bare:$rb_med:$rb_min:$rb_max first:$rf_med:$rf_min:$rf_max rebuild:$rr_med:$rr_min:$rr_max \
                other_target:$ro_med:$ro_min:$ro_max; do
      IFS=: read -r pass med lo hi <<<"$pair"
      csv+="gen_time,corpus/$name,$pass,gen_over_nvcc_median,$med,ratio"$'\n'
      csv+="gen_time,corpus/$name,$pass,gen_over_nvcc_min,$lo,ratio"$'\n'
      csv+="gen_time,corpus/$name,$pass,gen_over_nvcc_max,$hi,ratio"$'\n'
    done
  done
  echo "slowest file (median gen/nvcc): first build $worst_first (bare $worst_bare)," \
    "rebuild $worst_rebuild," \
    "other target $worst_other ($(nproc) CPUs)"
}

[[ $tables == *,files,* ]] && files_table
[[ $tables == *,corpus,* ]] && corpus_table
if [[ -n $out ]]; then
  mkdir -p "$out"
  printf '%s' "$csv" >"$out/gen_time.csv"
  echo "results written to $out/gen_time.csv"
fi

#!/usr/bin/env bash
# module_load.sh: load time and host memory of a module of 2000 kernels, one fresh process per
# measurement (see module_load.c for what each mode does).
#
#   bench/module_load.sh <build dir> [runs (default 5)] [out dir]
#
# Runs <build>/bench-bin/module_load in each mode (preload: cubind_preload up front; lazy: the
# first launch loads; raw: the driver's cuModuleLoadData of the same bytes; rawlib*: the library
# API, alone, with a parameter-layout check per kernel, with every kernel resolved) under the driver's
# CUDA_MODULE_LOADING=LAZY and =EAGER, `runs` times each, interleaved, and prints the medians:
#   load ms     the explicit loading step (cubind_preload / cuModuleLoadData; 0 for lazy)
#   first ms    first launch + sync of the first kernel (includes the whole load for lazy)
#   last ms     then the first launch + sync of the 2000th kernel
#   total ms    load + first + last: what the program waited for in all
#   rss KiB     resident-set growth over all of that: the host memory the loaded module costs
# Output: a table on stdout and, with an out dir, <out>/module_load.csv in the suite's format.
# Exit status: 0, 1 on a failure, 77 when there is no GPU.
set -u
build=${1:?usage: module_load.sh <build dir> [runs] [out dir]}
runs=${2:-5}
out=${3:-}
prog=$build/bench-bin/module_load
if [[ ! -x $prog ]]; then
  echo "module_load.sh: $prog not found: build the cubind_benchmarks target" >&2
  exit 1
fi

rows=$(mktemp)
log=$(mktemp)
trap 'rm -f "$rows" "$log"' EXIT
for ((r = 0; r < runs; r++)); do
  for loading in LAZY EAGER; do
    for mode in ${BENCH_MODULE_MODES:-preload lazy raw rawlib rawlib_check rawlib_resolve}; do
      CUDA_MODULE_LOADING=$loading "$prog" "$mode" >"$log" 2>&1
      rc=$?
      if [[ $rc -eq 77 ]]; then cat "$log"; exit 77; fi
      if [[ $rc -ne 0 ]] || ! grep -q '^mode ' "$log"; then
        echo "module_load.sh: module_load $mode (CUDA_MODULE_LOADING=$loading) failed (exit $rc):" >&2
        cat "$log" >&2
        exit 1
      fi
      # "mode m init_ms a load_ms b first_ms c last_ms d rss_kib e" -> "LOADING m b c d e"
      awk -v l="$loading" '/^mode / {print l, $2, $6, $8, $10, $12}' "$log" >>"$rows"
    done
  done
done

echo "Module load: $(grep -c . "$rows") processes, median of $runs per row"
printf '%-8s %-15s %10s %10s %10s %10s %10s\n' driver mode "load ms" "first ms" "last ms" \
  "total ms" "rss KiB"
csv=""
for loading in LAZY EAGER; do
  for mode in ${BENCH_MODULE_MODES:-preload lazy raw rawlib rawlib_check rawlib_resolve}; do
    # Median of each column over this (loading, mode)'s runs.
    line=$(awk -v l="$loading" -v m="$mode" '$1 == l && $2 == m {
        n++; load[n] = $3; first[n] = $4; last[n] = $5; total[n] = $3 + $4 + $5; rss[n] = $6 }
      function med(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      END { printf "%.3f %.3f %.3f %.3f %.0f", med(load, n), med(first, n), med(last, n), med(total, n), med(rss, n) }' "$rows")
    read -r load first last total rss <<<"$line"
    case $mode in
    raw) variant=cuModuleLoadData ;;
    rawlib*) variant=cuLibraryLoadData${mode#rawlib} ;;
    *) variant=cubind_$mode ;;
    esac
    printf '%-8s %-15s %10.1f %10.1f %10.1f %10.1f %10s\n' "$loading" "$mode" "$load" "$first" \
      "$last" "$total" "$rss"
    for metric in load:$load first_launch:$first last_launch:$last total:$total; do
      csv+="module_load,${loading,,}_driver_loading,$variant,${metric%%:*}_ms,${metric#*:},ms"$'\n'
    done
    csv+="module_load,${loading,,}_driver_loading,$variant,rss_growth_kib,$rss,KiB"$'\n'
  done
done

if [[ -n $out ]]; then
  mkdir -p "$out"
  { echo "benchmark,case,variant,metric,value,unit"; printf '%s' "$csv"; } >"$out/module_load.csv"
  echo "results written to $out/module_load.csv"
fi

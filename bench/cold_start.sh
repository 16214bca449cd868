#!/usr/bin/env bash
# cold_start.sh: process start to first correct result, cubind against the CUDA runtime.
#
#   bench/cold_start.sh <build dir> [runs (default 20)] [out dir]
#
# Runs <build>/bench-bin/cold_cubind and <build>/bench-bin/cold_runtime (the same tiny program: 1M-float
# vector add, result checked on the CPU) alternately, `runs` times each, after one untimed-for-
# the-median first run of each (reported on its own: it may pay for disk reads the others don't).
# Each run's wall time is taken around the process with bash's $EPOCHREALTIME (microseconds, no
# extra process forked per sample), so it covers exec, dynamic loading, driver init, module load,
# copies, the kernel, the check and process exit. The programs also print their time from main()
# to the checked result; both medians are reported.
#
# Reading the numbers: medians in milliseconds; "vs runtime" is cubind / runtime (below 1: cubind
# starts faster). Output: a table on stdout and, with an out dir, <out>/cold_start.csv in the
# suite's format (benchmark,case,variant,metric,value,unit).
# Exit status: 0, 1 on a failing or wrong run, 77 when there is no GPU.
set -u
build=${1:?usage: cold_start.sh <build dir> [runs] [out dir]}
runs=${2:-20}
out=${3:-}
progs=(cold_cubind cold_runtime)
names=(cubind runtime_launch)
for p in "${progs[@]}"; do
  if [[ ! -x $build/bench-bin/$p ]]; then
    echo "cold_start.sh: $build/bench-bin/$p not found: build the cubind_benchmarks target" >&2
    exit 1
  fi
done

# Microseconds since the epoch; $EPOCHREALTIME needs bash 5, else date(1) (adds a fork per read).
now_us() {
  if [[ -n ${EPOCHREALTIME:-} ]]; then
    local t=${EPOCHREALTIME/[.,]/}
    echo "$t"
  else
    echo $(( $(date +%s%N) / 1000 ))
  fi
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run_once <index>: runs progs[index] once; sets wall_us and main_us; exits on failure or skip.
run_once() {
  local prog=$build/bench-bin/${progs[$1]} t0 t1 rc
  t0=$(now_us)
  "$prog" >"$log" 2>&1
  rc=$?
  t1=$(now_us)
  if [[ $rc -eq 77 ]]; then
    cat "$log"
    exit 77
  fi
  if [[ $rc -ne 0 ]] || ! grep -q '^ok ' "$log"; then
    echo "cold_start.sh: ${progs[$1]} failed (exit $rc):" >&2
    cat "$log" >&2
    exit 1
  fi
  wall_us=$((t1 - t0))
  main_us=$(awk '/^ok main_to_result_us/ {printf "%d", $3}' "$log")
}

median() { sort -n | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

declare -a first_wall walls mains
for i in 0 1; do
  run_once "$i"
  first_wall[i]=$wall_us
  walls[i]=""
  mains[i]=""
done
for ((r = 0; r < runs; r++)); do
  for j in 0 1; do
    i=$(((r + j) % 2)) # alternate which program goes first
    run_once "$i"
    walls[i]+="$wall_us "
    mains[i]+="$main_us "
  done
done

declare -a med_wall med_main
for i in 0 1; do
  med_wall[i]=$(tr ' ' '\n' <<<"${walls[i]}" | grep . | median)
  med_main[i]=$(tr ' ' '\n' <<<"${mains[i]}" | grep . | median)
done

echo "Cold start: process start to first correct result, median of $runs runs each (ms)"
printf '%-16s %12s %16s %14s\n' variant "wall ms" "main->result ms" "first run ms"
for i in 0 1; do
  printf '%-16s %12.1f %16.1f %14.1f\n' "${names[i]}" \
    "$(awk -v v="${med_wall[i]}" 'BEGIN {print v / 1000}')" \
    "$(awk -v v="${med_main[i]}" 'BEGIN {print v / 1000}')" \
    "$(awk -v v="${first_wall[i]}" 'BEGIN {print v / 1000}')"
done
ratio=$(awk -v a="${med_wall[0]}" -v b="${med_wall[1]}" 'BEGIN {printf "%.3f", a / b}')
echo "cubind vs runtime (wall): $ratio"

if [[ -n $out ]]; then
  mkdir -p "$out"
  {
    echo "benchmark,case,variant,metric,value,unit"
    for i in 0 1; do
      awk -v n="${names[i]}" -v w="${med_wall[i]}" -v m="${med_main[i]}" -v f="${first_wall[i]}" \
        -v runs="$runs" 'BEGIN {
          printf "cold_start,vadd_1M,%s,wall_ms_median,%.3f,ms\n", n, w / 1000
          printf "cold_start,vadd_1M,%s,main_to_result_ms_median,%.3f,ms\n", n, m / 1000
          printf "cold_start,vadd_1M,%s,first_run_wall_ms,%.3f,ms\n", n, f / 1000
          printf "cold_start,vadd_1M,%s,runs,%d,count\n", n, runs }'
    done
    echo "cold_start,vadd_1M,cubind,ratio_vs_runtime_wall,$ratio,x"
  } >"$out/cold_start.csv"
  echo "results written to $out/cold_start.csv"
fi

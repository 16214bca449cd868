#!/usr/bin/env bash
# run_all.sh: runs every cubind benchmark from an existing build and collects the results.
#
#   bench/run_all.sh <build dir> <out dir>
#
# Builds nothing (build first: cmake --build <build dir> --target cubind_benchmarks). Runs, in
# order: launch_overhead, call_transfer (4 KiB .. 1 GiB; then pageable only with cubind's
# pageable staging off, CUBIND_PAGEABLE_STAGING=0, for comparison), launch_allocs,
# cold_start.sh, module_load.sh, device_ops (device-resident GB/s: elementwise kernels,
# cubind::array, reductions, against cuMemcpyDtoD and CUB), python_peers.py (PyCUDA, CuPy,
# numba where installed; the device-resident cases at device_ops's N), the footprint of the
# static runtime library, and one table of every device-resident GB/s (device_ops and the
# Python peers side by side). Only <build>/bench-bin is read,
# so carrying that folder alone to the GPU machine is enough. Writes into <out dir>:
#   summary.txt     every table, as printed (also on stdout), after the machine's description
#   results.csv     all numbers: benchmark,case,variant,metric,value,unit
#   results.json    the same as a JSON array
#   launch.png, transfer.png, staging.png   charts (bench/plot.py, matplotlib), where python3
#                   has it; else launch.svg and transfer.svg (standard library only)
# (Few files on purpose: the GPU machine's file transfer limits how many come back.)
# Takes well under 3 minutes on an H100. Environment knobs: BENCH_BATCHES (launch_overhead,
# default 200), BENCH_COLD_RUNS (default 20), BENCH_MODULE_RUNS (default 5), BENCH_NO_LARGE=1
# (skip the 1 GiB transfer), BENCH_DEVICE_N (floats per array of the device-resident cases,
# default 67108864: 256 MiB), BENCH_DEVICE_REPS (device_ops' rounds, default 20).
# Exit status: 0 all passed, 77 no GPU (everything skipped), 1 something failed.
set -u
build=${1:?usage: run_all.sh <build dir> <out dir>}
out=${2:?usage: run_all.sh <build dir> <out dir>}
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/bench-bin # the binaries and a copy of libcubind_runtime.a (bench/CMakeLists.txt)
mkdir -p "$out"
parts=$(mktemp -d) # each benchmark's own CSV, merged into results.csv at the end
trap 'rm -rf "$parts"' EXIT
summary=$out/summary.txt
: >"$summary"
failed=0
skipped=0

# say: to the summary and to the terminal (fd 3), even inside blocks redirected to a CSV.
exec 3>&1
say() { echo "$@" | tee -a "$summary" >&3; }

for b in launch_overhead call_transfer launch_allocs cold_cubind cold_runtime module_load; do
  if [[ ! -x $bin/$b ]]; then
    echo "run_all.sh: $bin/$b is missing: cmake --build $build --target cubind_benchmarks" >&2
    exit 1
  fi
done

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host: $(uname -srm), $(nproc) CPUs"
  grep -m1 'model name' /proc/cpuinfo 2>/dev/null
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.max.sm \
      --format=csv 2>&1
  else
    echo "nvidia-smi: not found"
  fi
} >"$parts/machine.txt"
tee -a "$summary" <"$parts/machine.txt"
say

# run <name> <command...>: runs one benchmark, records its status.
run() {
  local name=$1 rc start
  shift
  say "== $name"
  start=$SECONDS
  # (Each benchmark's "results written to <temporary file>" line says nothing useful here.)
  "$@" 2>&1 | grep -v '^results written to ' | tee -a "$summary"
  rc=${PIPESTATUS[0]}
  case $rc in
  0) say "-- $name: ok ($((SECONDS - start)) s)" ;;
  77) say "-- $name: skipped (no GPU)"; skipped=$((skipped + 1)) ;;
  *) say "-- $name: FAILED (exit $rc)"; failed=$((failed + 1)) ;;
  esac
  say
}

large=--large
[[ ${BENCH_NO_LARGE:-0} == 1 ]] && large=""
run launch_overhead "$bin/launch_overhead" --batches "${BENCH_BATCHES:-200}" "$parts/launch_overhead.csv"
run call_transfer "$bin/call_transfer" $large "$parts/call_transfer.csv"
# Pageable comparison (issue 7): the same pageable round trips with cubind's staging off (the
# driver's own pageable copy inside _call), with its own paired driver reference. Its variants
# are labelled cubind_call@nostaging in results.csv.
staging_parts="call_transfer_nostaging"
run call_transfer_nostaging env CUBIND_PAGEABLE_STAGING=0 "$bin/call_transfer" $large \
  --pageable-only --label nostaging "$parts/call_transfer_nostaging.csv"
run launch_allocs "$bin/launch_allocs" "$parts/launch_allocs.csv"
run cold_start "$here/cold_start.sh" "$build" "${BENCH_COLD_RUNS:-20}" "$parts"
run module_load "$here/module_load.sh" "$build" "${BENCH_MODULE_RUNS:-5}" "$parts"
# Device-resident throughput (3 arrays of BENCH_DEVICE_N floats on the GPU; a few seconds, most
# of it making and checking the inputs on the CPU). Built only where cubind::array is.
device_n=${BENCH_DEVICE_N:-67108864}
if [[ -x $bin/device_ops ]]; then
  run device_ops "$bin/device_ops" --n "$device_n" --reps "${BENCH_DEVICE_REPS:-20}" \
    "$parts/device_ops.csv"
else
  say "== device_ops: $bin/device_ops is missing (not built: no cubind::array?)"
  failed=$((failed + 1))
  say
fi
# What users compare with (issue 16): PyCUDA, CuPy, numba-cuda on the same kernels and sizes,
# where the python3 on PATH has them (BENCH_PYTHON picks another); BENCH_NO_PYTHON=1 skips.
if [[ ${BENCH_NO_PYTHON:-0} != 1 ]]; then
  echo "benchmark,case,variant,metric,value,unit" >"$parts/python_peers.csv"
  run python_peers "${BENCH_PYTHON:-python3}" "$here/python_peers.py" \
    --repeats "${BENCH_PYTHON_REPEATS:-10}" --device-n "$device_n" --csv "$parts/python_peers.csv"
fi

# Footprint: the static runtime library as linked into every program.
say "== footprint"
lib=$bin/libcubind_runtime.a
[[ -f $lib ]] || lib=$(find "$build" -name 'libcubind_runtime.a' -print -quit)
{
  echo "benchmark,case,variant,metric,value,unit"
  if [[ -n $lib ]]; then
    bytes=$(stat -c %s "$lib")
    say "static runtime: $lib: $bytes bytes ($(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1024}') KiB)"
    echo "footprint,runtime,$(basename "$lib"),archive_bytes,$bytes,B"
    if command -v size >/dev/null; then
      # text + data + bss of the archive's objects: what the library adds to a program at most.
      read -r text data bss < <(size -t "$lib" | awk 'END {print $1, $2, $3}')
      say "  code+data: text $text, data $data, bss $bss bytes (size -t)"
      echo "footprint,runtime,$(basename "$lib"),text_bytes,$text,B"
      echo "footprint,runtime,$(basename "$lib"),data_bytes,$data,B"
      echo "footprint,runtime,$(basename "$lib"),bss_bytes,$bss,B"
    fi
  else
    say "static runtime: libcubind_runtime.a not found under $build"
    failed=$((failed + 1))
  fi
  for b in cold_cubind cold_runtime; do
    bytes=$(stat -c %s "$bin/$b")
    say "cold-start binary $b: $bytes bytes"
    echo "footprint,binary,$b,file_bytes,$bytes,B"
  done
} >"$parts/footprint.csv"
say

# One CSV and one JSON with every row.
{
  echo "benchmark,case,variant,metric,value,unit"
  for f in launch_overhead call_transfer $staging_parts launch_allocs cold_start module_load \
    device_ops python_peers footprint; do
    if [[ -f $parts/$f.csv ]]; then tail -n +2 "$parts/$f.csv"; fi
  done
} >"$out/results.csv"
awk -F, 'NR == 1 {print "["; next}
  {printf "%s  {\"benchmark\": \"%s\", \"case\": \"%s\", \"variant\": \"%s\", \"metric\": \"%s\", \"value\": %s, \"unit\": \"%s\"}", (NR > 2 ? ",\n" : ""), $1, $2, $3, $4, $5, $6}
  END {print "\n]"}' "$out/results.csv" >"$out/results.json"
# Every device-resident GB/s in one table: device_ops (cubind, the copy, CUB) and the Python
# peers' device cases (python_device_ops), per operation; vs copy divides by device_ops' copy.
device_table=$(awk -F, '
  function add(key, op) {
    if (!(key in seen)) { seen[key] = 1; order[++count] = key; opof[key] = op }
    if (!(op in opseen)) { opseen[op] = 1; ops[++nops] = op }
  }
  NR == 1 { next }
  $1 == "device_ops" && $4 ~ /^GBps_(median|p10|p90)$/ {
    name = $3 == "cuMemcpyDtoD" ? "driver cuMemcpyDtoD" : \
      $3 ~ /^cub_/ ? "CUB DeviceReduce::Sum (C++)" : "cubind " $3
    split($2, w, " "); key = w[1] SUBSEP name; add(key, w[1])
    m = $4; sub(/^GBps_/, "", m); v[key, m] = $5
    if (w[1] == "copy" && m == "median") copy = $5
  }
  $1 == "python_device_ops" && $6 == "GB/s" {
    split($2, w, " "); key = w[1] SUBSEP $3; add(key, w[1]); v[key, $4] = $5
  }
  END {
    if (!count) exit
    printf "%-11s %-34s %10s %10s %10s %8s\n", "op", "implementation", "GB/s", "p10", "p90", "vs copy"
    for (o = 1; o <= nops; o++)
      for (i = 1; i <= count; i++) {
        key = order[i]
        if (opof[key] != ops[o]) continue
        split(key, kv, SUBSEP)
        ratio = copy > 0 ? sprintf("%.3f", v[key, "median"] / copy) : "-"
        printf "%-11s %-34s %10.1f %10.1f %10.1f %8s\n", ops[o], kv[2], v[key, "median"], \
          v[key, "p10"], v[key, "p90"], ratio
      }
  }' "$out/results.csv")
if [[ -n $device_table ]]; then
  say "== device-resident GB/s, every implementation (median, p10, p90; vs copy: / cuMemcpyDtoD's median)"
  say "$device_table"
  say
fi
# Charts (PNG with matplotlib, else SVG), where there is a python3.
if [[ -f $out/results.csv ]] && command -v python3 >/dev/null; then
  python3 "$here/plot.py" "$out/results.csv" "$out" | tee -a "$summary" >&3 || say "plot.py failed"
fi
say "results: $out/results.csv, $out/results.json, $summary"

if ((failed > 0)); then exit 1; fi
if ((skipped > 0)); then exit 77; fi
exit 0

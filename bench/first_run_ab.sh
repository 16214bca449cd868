#!/usr/bin/env bash
# first_run_ab.sh: two cubind-gen builds' first runs on the same files, each against nvcc -fatbin
# in the same loop, for before/after comparisons of the generator (issue 16).
#
#   bench/first_run_ab.sh <old cubind-gen> <new cubind-gen> <arch> <file.cu>... [-- <option>...]
#
# For each file, `runs` (RUNS, default 3) times in turn: nvcc -fatbin -arch=sm_<arch>, then each
# cubind-gen --kernels-from that fatbin with an empty --cache-dir (a first run), its prelude
# builder waited for before the next run. Options after `--` go to nvcc and to both cubind-gens
# (-I, -D, -std=...). Both take the installed preludes of PRELUDES (default: the new binary's
# build, <build>/share/cubind/preludes), so the binaries differ in their code alone; they must be
# built against the same libclang. Prints per file the median wall seconds, the ratios to nvcc and
# every run's time.
set -euo pipefail
if (($# < 4)); then
  sed -n 2,13p "$0" >&2
  exit 2
fi
old=$1 new=$2 arch=$3
shift 3
files=() options=()
while (($#)) && [[ $1 != -- ]]; do files+=("$1"); shift; done
if (($#)); then shift; options=("$@"); fi
runs=${RUNS:-3}
export CUBIND_GEN_PRELUDE_DIR=${PRELUDES:-$(cd "$(dirname "$new")/.." && pwd)/share/cubind/preludes}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

seconds() { # seconds COMMAND...: its wall time (its output dropped); fails with it
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || return 1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", b - a}'
}
median() {
  printf '%s\n' "$@" | sort -g |
    awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
first_run() { # first_run GEN: one cubind-gen run with an empty cache, then its builder waited for
  local gen=$1 lock t
  rm -rf "$work/cache" "$work/out"
  t=$(seconds "$gen" "${options[@]}" --cache-dir "$work/cache" --kernels-from "$work/k.fatbin" \
    -o "$work/out" "$file") || { echo "first_run_ab.sh: $gen failed on $file" >&2; exit 1; }
  for lock in "$work"/cache/*.lock; do [[ -e $lock ]] && flock "$lock" true; done
  echo "$t"
}

printf '%-28s %8s %8s %7s %8s %7s  %s\n' file "nvcc s" "old s" "old/n" "new s" "new/n" \
  "runs (old; new)"
for file in "${files[@]}"; do
  ns=() os=() gs=()
  for ((r = 0; r < runs; r++)); do
    t=$(seconds nvcc -fatbin -arch=sm_"$arch" "${options[@]}" -o "$work/k.fatbin" "$file") ||
      { echo "first_run_ab.sh: nvcc failed on $file" >&2; exit 1; }
    ns+=("$t")
    t=$(first_run "$old") || exit 1
    os+=("$t")
    t=$(first_run "$new") || exit 1
    gs+=("$t")
  done
  n=$(median "${ns[@]}") o=$(median "${os[@]}") g=$(median "${gs[@]}")
  awk -v f="$(basename "$file")" -v n="$n" -v o="$o" -v g="$g" -v ro="${os[*]}" -v rg="${gs[*]}" \
    'BEGIN {printf "%-28s %8.2f %8.2f %7.2f %8.2f %7.2f  %s; %s\n", f, n, o, o / n, g, g / n,
                   ro, rg}'
done
echo "(median of $runs; $(nproc) CPUs; sm_$arch; $(nvcc --version | tail -1))"

#!/usr/bin/env bash
# kill_race.sh: cubind-gen's outputs under SIGKILL and concurrent runs (issue 14). Each round runs
# two versions of one .cu (same stem, different kernels) on one output directory at once, plus a
# third run killed with SIGKILL at a random moment. After every round the .cubind.c must compile
# with its header as strict C99 (a header of one run beside the definitions of another, or a
# file cut short, would not), and the header must be one of the two versions, whole.
#   kill_race.sh <cubind-gen> <cubind include dir> <toolkit include dir> <cc> <work dir> [rounds]
set -u
gen=$1 include=$2 cuda_include=$3 cc=$4 work=$5 rounds=${6:-25}
rm -rf "$work"
mkdir -p "$work/out"
cat >"$work/race.cu" <<'CU'
#include <cubind/annotations.h>
#ifdef SECOND
extern "C" __global__ void second(CUBIND_OUT_N(n) double *b, long n) { if (n) b[0] = 1; }
#else
extern "C" __global__ void first(CUBIND_IN_N(n) const float *a, int n, float s) { (void)a; (void)s; }
#endif
CU
run() { "$gen" --cache-dir "$work/cache" -I "$include" -o "$work/out" "$@" "$work/race.cu"; }
run >/dev/null || { echo "kill_race: the first run failed" >&2; exit 1; }
for round in $(seq 1 "$rounds"); do
  run 2>/dev/null &
  first=$!
  run -DSECOND 2>/dev/null &
  second=$!
  run -DSECOND 2>/dev/null &
  victim=$!
  sleep "0.$(printf '%03d' $((RANDOM % 900)))"
  kill -KILL "$victim" 2>/dev/null
  wait "$first" "$second"
  wait "$victim" 2>/dev/null
  if ! "$cc" -std=c99 -Wall -Wextra -Werror -pedantic -I "$work/out" -I "$include" \
      -isystem "$cuda_include" -c "$work/out/race.cubind.c" -o "$work/race.o" 2>"$work/cc.log"; then
    echo "kill_race: round $round: the outputs do not compile together:" >&2
    cat "$work/cc.log" >&2
    exit 1
  fi
  header=$(cat "$work/out/race.cubind.h")
  case "$header" in
    *"#endif /* CUBIND_GENERATED_RACE_IMPLEMENTATION */") ;;
    *) echo "kill_race: round $round: race.cubind.h is not whole" >&2; exit 1 ;;
  esac
  if [[ "$header" != *first_launch* && "$header" != *second_launch* ]]; then
    echo "kill_race: round $round: race.cubind.h binds neither version" >&2
    exit 1
  fi
done
echo "kill_race: $rounds rounds (2 concurrent runs + 1 killed each): every pair compiles"

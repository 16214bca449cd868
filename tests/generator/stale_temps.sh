#!/usr/bin/env bash
# stale_temps.sh: a run removes the temporary files that killed runs left for its outputs
# (".<output>.tmp-XXXXXX") once they are more than an hour old, whether it rewrites the outputs
# or finds them unchanged; a newer one (a run may still be writing it) and another file's stay.
#   stale_temps.sh <cubind-gen> <cubind include dir> <fixture .cu> <work dir>
set -eu
gen=$1 include=$2 cu=$3 work=$4
out=$work/out
stem=$(basename "$cu" .cu)
rm -rf "$work"
mkdir -p "$out"
old() { touch -d '2 hours ago' "$out/$1"; }
expect() { # expect gone|kept NAME
  if [ "$1" = gone ] && [ -e "$out/$2" ]; then echo "stale_temps: $2 is still there" >&2; exit 1; fi
  if [ "$1" = kept ] && [ ! -e "$out/$2" ]; then echo "stale_temps: $2 was removed" >&2; exit 1; fi
}
old ".$stem.cubind.h.tmp-AAAAAA"
old ".$stem.cubind.c.tmp-BBBBBB"
old ".$stem.cubind.names.tmp-CCCCCC"
old ".other.cubind.h.tmp-DDDDDD"
touch "$out/.$stem.cubind.h.tmp-EEEEEE"
"$gen" -I "$include" -o "$out" "$cu"
expect gone ".$stem.cubind.h.tmp-AAAAAA"
expect gone ".$stem.cubind.c.tmp-BBBBBB"
expect gone ".$stem.cubind.names.tmp-CCCCCC"
expect kept ".other.cubind.h.tmp-DDDDDD"
expect kept ".$stem.cubind.h.tmp-EEEEEE"
# again, with the outputs unchanged (nothing renamed into place)
old ".$stem.cubind.h.tmp-FFFFFF"
"$gen" -I "$include" -o "$out" "$cu"
expect gone ".$stem.cubind.h.tmp-FFFFFF"
expect kept ".$stem.cubind.h.tmp-EEEEEE"
test -s "$out/$stem.cubind.h"
echo "stale_temps: the stale temporary files went, the fresh one and another output's stayed"

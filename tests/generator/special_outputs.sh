#!/usr/bin/env bash
# special_outputs.sh: an output path that exists and is no regular file is written in place,
# never replaced by a file and never read (`--depfile /dev/null` as root once replaced the
# device with a regular file; a FIFO made the run block). A FIFO with a reader gets the depfile
# and stays a FIFO; one without a reader is an error at once, with no output written.
#   special_outputs.sh <cubind-gen> <cubind include dir> <fixture .cu> <work dir>
set -eu
gen=$1 include=$2 cu=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
fifo=$work/depfile.fifo
mkfifo "$fifo"
cat "$fifo" > "$work/read" &
reader=$!
timeout 60 "$gen" -I "$include" --no-cache --depfile "$fifo" -o "$work/with_reader" "$cu"
wait "$reader"
if [ ! -p "$fifo" ]; then echo "special_outputs: the FIFO was replaced" >&2; exit 1; fi
if ! grep -q 'cubind\.h' "$work/read"; then
  echo "special_outputs: the reader got no depfile: $(cat "$work/read")" >&2; exit 1
fi
# no reader: an error, not a wait
set +e
timeout 60 "$gen" -I "$include" --no-cache --depfile "$fifo" -o "$work/no_reader" "$cu" \
  2> "$work/stderr"
rc=$?
set -e
if [ "$rc" != 1 ] || ! grep -q "cannot write '.*depfile.fifo': it is a FIFO that no process reads" \
    "$work/stderr"; then
  echo "special_outputs: no reader: rc $rc, $(cat "$work/stderr")" >&2; exit 1
fi
if [ -e "$work/no_reader" ] && [ -n "$(ls -A "$work/no_reader")" ]; then
  echo "special_outputs: outputs written despite the error: $(ls -A "$work/no_reader")" >&2; exit 1
fi
if [ ! -p "$fifo" ]; then echo "special_outputs: the FIFO was replaced" >&2; exit 1; fi
# /dev/null (a device every user can write): the run succeeds, the device stays one
"$gen" -I "$include" --no-cache --depfile /dev/null -o "$work/dev_null" "$cu"
if [ ! -c /dev/null ]; then echo "special_outputs: /dev/null is no device any more" >&2; exit 1; fi
echo "special_outputs: FIFO with and without a reader, /dev/null: written in place"

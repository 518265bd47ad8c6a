#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/floors.sh [-v] - the machine's floors, measured now (bench/floors.c):
# one rdtsc, one record write of 4, 8, 12, 20 and 32 bytes into a 16 MiB
# buffer that stays in this CPU's caches, the same records (4, 12, 20, 32
# bytes) streamed into a 16 MiB ring that a thread on the other CPU
# drains as the recorder does (the real floor of a record's write), a locked add, a cmpxchg, a plain add, a hash table's update
# (a plain one, a hist trigger's lock-free table's, a bt map's); CPU ns each.  Every
# benchmark prints this line beside its results (bench/lib.sh
# bench_floors), so a figure from another machine can be read against that
# machine's own floor (issue 25).  -v: the raw key=ns line only, for
# scripts (bench/hotpaths.sh).  FLOORS_ROUNDS (5): the median of as many
# runs of each loop.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CC=${CC:-gcc}
tmp=$(mktemp -d /tmp/utrace-floors.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$CC" -std=gnu11 -O2 -I"$ROOT" -o "$tmp/floors" "$ROOT/bench/floors.c" -pthread || {
	echo "floors.sh: cannot build bench/floors.c" >&2
	exit 1
}
line=$("$tmp/floors" "${FLOORS_ROUNDS:-5}") || exit 1
if [ "${1:-}" = -v ]; then
	echo "$line"
	exit 0
fi
# shellcheck disable=SC2086 # key=value words
eval $line
printf 'floors, same run (CPU ns each): rdtsc %s; record write 4 B %s, 8 B %s, 12 B %s, 20 B %s, 32 B %s; streamed into a ring drained by the other CPU 4 B %s, 12 B %s, 20 B %s, 32 B %s; lock add %s, cmpxchg %s, plain add %s; hash table update (1 key, 1 value): plain %s, hist table (hist_map.h) %s, bt map count() %s\n' \
	"$rdtsc" "$w4" "$w8" "$w12" "$w20" "$w32" "$s4" "$s12" "$s20" "$s32" "$lock_add" "$cmpxchg" "$add" "$tbl" "$hmap" "$btmap"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/stat.sh [BUILD_DIR] [TRIALS]   (BUILD_DIR defaults to build, TRIALS to 15)
#
# utrace stat against perf stat, in the same run, on the same work:
#
#   perf stat   -r 20 -- true
#   utrace stat -r 20 -- true
#
# both with their default events.  Each trial runs the two commands back
# to back (alternating which goes first, so neither always gets the warm
# cache) and times each from fork to exit.  Prints per tool the median and
# the minimum over the trials of the whole command and per repeat, the
# time each tool itself reports for 'true' ("seconds time elapsed", the
# mean over its 20 runs), and the ratio utrace / perf of the medians.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B
TRIALS=${2:-15}
REPEAT=20
U=$B/utrace
export LC_ALL=C

if [ ! -x "$U" ]; then
	echo "bench/stat.sh: $U is not built (run make)" >&2
	exit 1
fi
if ! command -v perf >/dev/null 2>&1; then
	echo "bench/stat.sh: perf is not installed (Debian: linux-perf)" >&2
	exit 1
fi
if ! perf stat -e task-clock -- true >/dev/null 2>&1; then
	echo "bench/stat.sh: perf stat cannot count here (perf_event_paranoid?)" >&2
	exit 1
fi

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM

now() { date +%s%N; }

# run NAME: one timed run of the tool into $T/NAME.ns; its report into $T/NAME.txt
run() {
	local t0 t1
	t0=$(now)
	if [ "$1" = perf ]; then
		perf stat -r $REPEAT -- true 2>"$T/$1.txt" >/dev/null
	else
		"$U" stat -r $REPEAT -- true 2>"$T/$1.txt" >/dev/null
	fi
	t1=$(now)
	echo $((t1 - t0)) >>"$T/$1.ns"
	# the tool's own mean elapsed for 'true', in seconds
	awk '/seconds time elapsed/ { print $1 }' "$T/$1.txt" >>"$T/$1.elapsed"
}

# warm-up: page cache, dynamic loader caches
run perf
run utrace
rm -f "$T"/*.ns "$T"/*.elapsed

for ((i = 0; i < TRIALS; i++)); do
	if ((i % 2)); then
		run perf
		run utrace
	else
		run utrace
		run perf
	fi
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minimum() { sort -n "$1" | head -n 1; }

pm=$(median "$T/perf.ns")
um=$(median "$T/utrace.ns")
pmin=$(minimum "$T/perf.ns")
umin=$(minimum "$T/utrace.ns")
pe=$(median "$T/perf.elapsed")
ue=$(median "$T/utrace.elapsed")

echo "stat -r $REPEAT -- true, $TRIALS trials each, default events ($(nproc) CPUs, $(uname -r))"
printf '%-8s %12s %12s %14s %14s %20s\n' tool "median ms" "min ms" "ms per run" "min per run" "reported 'true' ms"
awk -v n=perf -v m="$pm" -v mi="$pmin" -v e="$pe" -v r=$REPEAT 'BEGIN {
	printf "%-8s %12.2f %12.2f %14.3f %14.3f %20.3f\n", n, m / 1e6, mi / 1e6, m / 1e6 / r, mi / 1e6 / r, e * 1e3 }'
awk -v n=utrace -v m="$um" -v mi="$umin" -v e="$ue" -v r=$REPEAT 'BEGIN {
	printf "%-8s %12.2f %12.2f %14.3f %14.3f %20.3f\n", n, m / 1e6, mi / 1e6, m / 1e6 / r, mi / 1e6 / r, e * 1e3 }'
awk -v u="$um" -v p="$pm" 'BEGIN {
	printf "ratio utrace/perf (median wall time): %.2f  (%s)\n", u / p,
		u < p ? sprintf("utrace stat %.1fx faster", p / u) : sprintf("utrace stat %.1fx slower", u / p) }'
bash "$ROOT/bench/floors.sh" || echo "floors: not measured"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/stream.sh [BUILD_DIR]   (BUILD_DIR defaults to build)
#
# What printing a running program's call graph costs: `utrace stream`
# (the live tracefs's trace_pipe, read as the recording grows) against
# `uftrace live` (uftrace's record then replay, its way of printing a
# run), on a program that calls a leaf function RATE times a second, in
# steps of 10 ms, for SECS seconds.  Each tool runs the program for SECS
# and for 4 x SECS seconds: the CPU time the whole run took (the tool's
# processes and the program, user + sys, from /usr/bin/time) per second
# of running shows whether the cost grows with the length of the run (it
# should not: a stream reads each record once).  Both print to a file;
# the lines are counted so a tool that printed less is seen.
#
# trace-cmd stream, the verb's namesake, traces the kernel only and
# cannot run here (it needs set_ftrace_pid, which this kernel lacks).
#
# Knobs: STREAM_SECS (2), STREAM_RATE (100000), STREAM_RUNS (3: the
# median CPU of that many runs is printed), CC (gcc).  Timings are never
# pass/fail.
. "$(dirname "$0")/lib.sh"
SECS=${STREAM_SECS:-2}
RATE=${STREAM_RATE:-100000}
RUNS=${STREAM_RUNS:-3}
bench_tmp
command -v /usr/bin/time >/dev/null || die "/usr/bin/time not found (apt-get install time)"
HAVE_UFTRACE=1
command -v uftrace >/dev/null || HAVE_UFTRACE=0

cat >"$OUT/steady.c" <<'PROG'
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
int main(int argc, char **argv)
{
	int secs = atoi(argv[1]), rate = atoi(argv[2]);
	struct timespec step = {0, 10000000};
	volatile int v = 0;

	for (int i = 0; i < secs * 100; i++) {
		for (int k = 0; k < rate / 100; k++)
			v = leaf(v);
		nanosleep(&step, NULL);
	}
	return 0;
}
PROG
"$CC" -O2 $("$U" cflags) -o "$OUT/steady" "$OUT/steady.c" || die "cannot build the program"
"$CC" -O2 -pg -o "$OUT/steady-pg" "$OUT/steady.c" || die "cannot build the -pg program"

# run TOOL SECS: "CPU_SECONDS LINES" of one run (CPU: user + sys)
run() {
	local t=$1 s=$2
	case $t in
	utrace) /usr/bin/time -f '%U %S' -o "$OUT/time" "$U" stream -- "$OUT/steady" "$s" "$RATE" \
		>"$OUT/lines" 2>/dev/null ;;
	uftrace) (cd "$OUT" && /usr/bin/time -f '%U %S' -o "$OUT/time" uftrace live --no-pager \
		-d "$OUT/uftrace.data" "$OUT/steady-pg" "$s" "$RATE" >"$OUT/lines" 2>/dev/null) ;;
	esac
	awk '{ printf "%.2f ", $1 + $2 }' "$OUT/time"
	wc -l <"$OUT/lines"
}

# median TOOL SECS: "CPU LINES" of the run with the median CPU
median() {
	for _ in $(seq "$RUNS"); do run "$1" "$2"; done | sort -n | sed -n "$(((RUNS + 1) / 2))p"
}

echo "stream: leaf() called $RATE times a second, in 10 ms steps; CPU = user + sys of the"
echo "whole run (tool and program), median of $RUNS runs; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %6s %12s %14s %12s\n' tool run "CPU s" "CPU s / run s" lines
declare -A CPU
for tool in utrace uftrace; do
	[ "$tool" = uftrace ] && [ "$HAVE_UFTRACE" = 0 ] && { echo "uftrace: not installed"; continue; }
	for s in "$SECS" $((SECS * 4)); do
		read -r cpu lines < <(median "$tool" "$s")
		CPU[$tool.$s]=$cpu
		printf '%-9s %5ss %12s %14.3f %12s\n' "$tool" "$s" "$cpu" \
			"$(awk -v c="$cpu" -v s="$s" 'BEGIN { print c / s }')" "$lines"
	done
done
for s in "$SECS" $((SECS * 4)); do
	[ -n "${CPU[uftrace.$s]:-}" ] && awk -v u="${CPU[utrace.$s]}" -v f="${CPU[uftrace.$s]}" \
		-v s="$s" 'BEGIN { printf "uftrace live / utrace stream CPU, %ss run: %.2fx\n", s, f / u }'
done
awk -v a="${CPU[utrace.$SECS]}" -v b="${CPU[utrace.$((SECS * 4))]}" \
	'BEGIN { printf "utrace stream CPU, 4x longer run: %.2fx (4.00x = linear)\n", b / a }'
bench_floors

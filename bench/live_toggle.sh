#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/live_toggle.sh [BUILD_DIR]   (BUILD_DIR defaults to build)
#
# How long switching current_tracer takes through the live tracefs
# (utrace record --tracefs, docs/utrace-tracefs.md) while the program
# runs: a program of 10,000 functions built with `utrace cflags`
# (bench/many_funcs.sh, its threads calling every function in a loop) is
# recorded with -p nop and its tracer written nop -> function_graph -> nop
# TOGGLE_N times.  Each write is timed from the open to the close of
# `echo NAME > current_tracer` (bash's EPOCHREALTIME, no process started):
# the write returns once every process has patched or unpatched its
# 10,000 sites (runtime/live.c, text_poke).  Prints the median, 90th
# percentile and max of each direction, and the load: on a loaded
# machine the max is the wait for a CPU of the four threads a switch goes
# through (FUSE, recorder, the runtime's live thread, the writer).
#
# Peer: the kernel's own current_tracer cannot run here (this kernel has
# no function tracer), and uftrace cannot change what it traces in a
# running program; the nearest equivalent is restarting the recording
# with the other tracer, so the time of a whole `utrace record -p
# function_graph` of the same program (one pass, then exit) is printed
# too.
#
# Knobs: TOGGLE_N (100), TOGGLE_THREADS (1), TOGGLE_FUNCS (10000), CC (gcc).
# Timings are never pass/fail; the script fails only if the switches did
# not happen (no function_graph record of the program's functions).
. "$(dirname "$0")/lib.sh"
N=${TOGGLE_N:-100}
THREADS=${TOGGLE_THREADS:-1}
FUNCS=${TOGGLE_FUNCS:-10000}
OUT=$(mktemp -d /tmp/utrace-toggle-bench.XXXXXX) || exit 1
RP=
cleanup() {
	touch "$OUT/stop"
	[ -n "$RP" ] && wait "$RP" 2>/dev/null
	grep -q " $OUT/mnt fuse.utrace " /proc/mounts && umount -l "$OUT/mnt" 2>/dev/null
	rm -rf "$OUT"
}
trap cleanup EXIT

[ -c /dev/fuse ] || die "no /dev/fuse: the live tracefs cannot be mounted here"
P=$OUT/many
bash "$ROOT/bench/many_funcs.sh" "$FUNCS" "$THREADS" >"$P.c"
"$CC" -O2 -pthread $("$U" cflags) -o "$P" "$P.c" || die "cannot build the program"

# stats LABEL FILE: median, 90th percentile and max of the milliseconds
# in FILE
stats() {
	sort -n "$2" | awk -v l="$1" '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		p = v[int((NR * 9 + 9) / 10)]
		printf "%-28s median %7.2f ms   p90 %7.2f ms   max %7.2f ms   (%d)\n", l, m, p, v[NR], NR }'
}
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'; }

mkdir "$OUT/mnt"
"$U" record -p nop --tracefs "$OUT/mnt" -o "$OUT/live.dat" -- "$P" "$OUT/stop" \
	>"$OUT/rec.out" 2>&1 &
RP=$!
for _ in $(seq 200); do [ -f "$OUT/mnt/current_tracer" ] && break; sleep 0.05; done
[ -f "$OUT/mnt/current_tracer" ] || die "the tracefs was not mounted: $(cat "$OUT/rec.out")"
# every object registered: the functions are listed once the program's
# sites are all known
for _ in $(seq 200); do
	[ "$(grep -c '^f[0-9]' "$OUT/mnt/available_filter_functions")" -ge "$FUNCS" ] && break
	sleep 0.05
done
nf=$(grep -c '^f[0-9]' "$OUT/mnt/available_filter_functions")
[ "$nf" -ge "$FUNCS" ] || die "only $nf of $FUNCS functions are traceable"
for _ in $(seq "$N"); do
	a=$EPOCHREALTIME
	echo function_graph >"$OUT/mnt/current_tracer" || die "the switch to function_graph failed"
	b=$EPOCHREALTIME
	sleep 0.005 # a few passes of the program traced
	c=$EPOCHREALTIME
	echo nop >"$OUT/mnt/current_tracer" || die "the switch to nop failed"
	d=$EPOCHREALTIME
	ms "$a" "$b" >>"$OUT/on"
	ms "$c" "$d" >>"$OUT/off"
done
touch "$OUT/stop"
wait "$RP"
RP=
[ "$(grep -c '' "$OUT/on")" -eq "$N" ] || die "not every switch was timed"
"$U" report -i "$OUT/live.dat" >"$OUT/report" 2>&1 || die "cannot read the recording"
# function_graph held every function: the first and the last one recorded
grep -q ": f0\$" "$OUT/report" && grep -q ": f$((FUNCS - 1))\$" "$OUT/report" ||
	die "no record of f0 and f$((FUNCS - 1)): the switches did not patch every site"

# the peer: the same change by restarting the recording (one pass)
: >"$OUT/restart"
for _ in 1 2 3 4 5; do
	a=$EPOCHREALTIME
	"$U" record -p function_graph -o "$OUT/r.dat" -- "$P" "$OUT/stop" >/dev/null 2>&1
	b=$EPOCHREALTIME
	ms "$a" "$b" >>"$OUT/restart"
done

echo "live_toggle.sh: $FUNCS functions, $THREADS thread(s), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
stats "nop -> function_graph" "$OUT/on"
stats "function_graph -> nop" "$OUT/off"
stats "restart of utrace record" "$OUT/restart"
bench_floors

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/attach.sh [BUILD_DIR]   (BUILD_DIR defaults to build)
#
# How long `utrace record -P PID` takes to attach to a running 16-thread
# process (tests/kernel/kattach.c, 16 threads computing and napping): from
# the start of the command to the runtime's NOTICE that it is attached
# (registered, every selected site patched), as utrace record prints it
# ("attached to PID (kattach) in N ms"); and the wall time of the whole
# command with --duration 0.05 (attach, 50 ms of tracing, detach, file).
# The program is built with `utrace cflags` (call sites) and without
# (function entries patched), function_graph, the default.
#
# Knobs: ATTACH_RUNS (10 rounds per build, median and max reported),
# ATTACH_THREADS (16), CC (gcc).  Timings are never pass/fail.
. "$(dirname "$0")/lib.sh"
RUNS=${ATTACH_RUNS:-10}
NT=${ATTACH_THREADS:-16}
OUT=$(mktemp -d /tmp/utrace-attach-bench.XXXXXX) || exit 1
TP=
trap '[ -n "$TP" ] && kill -9 $TP 2>/dev/null; rm -rf "$OUT"' EXIT

$CC -O2 $("$U" cflags) -o "$OUT/kattach.cf" "$ROOT/tests/kernel/kattach.c" -lpthread &&
	$CC -O2 -o "$OUT/kattach" "$ROOT/tests/kernel/kattach.c" -lpthread || die "cannot build"

median_max() { sort -n | awk '{ v[NR] = $1 } END { printf "median %.1f ms, max %.1f ms", v[int((NR + 1) / 2)], v[NR] }'; }

for build in kattach.cf kattach; do
	"$OUT/$build" "$NT" >/dev/null 2>"$OUT/err" &
	TP=$!
	for _ in $(seq 200); do grep -q ready "$OUT/err" && break; sleep 0.02; done
	: >"$OUT/attach" && : >"$OUT/wall"
	for _ in $(seq "$RUNS"); do
		s=$(date +%s%N)
		"$U" record -P "$TP" --duration 0.05 -o "$OUT/a.dat" 2>"$OUT/log" >/dev/null ||
			die "record failed: $(tail -1 "$OUT/log")"
		e=$(date +%s%N)
		sed -n 's/.* attached to .* in \([0-9.]*\) ms/\1/p' "$OUT/log" >>"$OUT/attach"
		echo "$(((e - s) / 1000))" | awk '{ print $1 / 1000 }' >>"$OUT/wall"
	done
	kill -USR1 "$TP"
	wait "$TP"
	TP=
	what=$([ $build = kattach.cf ] && echo "built with utrace cflags" || echo "built without (entries patched)")
	echo "$NT threads, $what: attach $(median_max <"$OUT/attach"); whole command with --duration 0.05: $(median_max <"$OUT/wall")"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
bench_floors

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_marker_trig.sh BUILD_DIR - trace_marker's event,
# events/ftrace/print, takes triggers as the kernel's (ftracetest's
# trigger-trace-marker-*.tc): a hist trigger counts each trace_marker
# write by common_pid and by the text (buf, with its filter `if buf ==`
# choosing the writes), a snapshot trigger allocates the snapshot and
# takes one per write (its text in the snapshot file), a latency between
# two writes goes through an onmatch(ftrace.print) action into a
# synthetic event's hist, and the writes are still in trace.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/kernel" -o "$T/ltp" \
	"$ROOT/tests/kernel/ltp.c" ||
	{ notok "build the tracepoint program"; exit 1; }
"$U" record -p nop --tracefs "$T/mnt" -o "$T/ltp.dat" -- "$T/ltp" "$T/stop" >"$T/ltp.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1
P=events/ftrace/print

check "events/ftrace/print has trigger and hist" test -f $P/trigger -a -f $P/hist
check "the print trigger lists the kernel's available triggers" \
	grep -q '^# Available triggers:' $P/trigger

# ---- hist --------------------------------------------------------------
echo 'hist:keys=common_pid' >$P/trigger
for i in 1 2 3 4 5 6 7; do echo "hello $i" >trace_marker; done
check "a hist trigger on print counts the 7 writes" grep -q 'hitcount: *7$' $P/hist
check "the writes are still in trace" test "$(grep -c 'tracing_mark_write: hello' trace)" = 7
echo 'hist:keys=buf:vals=hitcount if buf == "two"' >>$P/trigger
for w in one two two three two; do echo "$w" >trace_marker; done
check "a filtered hist on buf counts the 3 writes it names" \
	grep -q 'buf: two *} hitcount: *3$' $P/hist
check "... and no other text" test "$(grep -c '^{ buf:' $P/hist)" = 1
echo '!hist:keys=buf:vals=hitcount if buf == "two"' >>$P/trigger
echo '!hist:keys=common_pid' >>$P/trigger
check "the triggers are removed in the form they print" \
	test "$(grep -vc '^#' $P/trigger)" = 0

# ---- snapshot ----------------------------------------------------------
check "the snapshot is not allocated yet" grep -q 'Snapshot is freed' snapshot
echo snapshot >$P/trigger
check "a snapshot trigger allocates it" grep -q 'Snapshot is allocated' snapshot
echo "marker >1<" >trace_marker
check "a write takes a snapshot that holds it" grep -q 'tracing_mark_write: marker >1<' snapshot
echo '!snapshot' >>$P/trigger

# ---- onmatch(ftrace.print) into a synthetic event ----------------------
echo 'mlat u64 lat' >synthetic_events
echo 'hist:keys=common_pid:ts0=common_timestamp.usecs if buf == "start"' >$P/trigger
echo 'hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:onmatch(ftrace.print).mlat($lat) if buf == "end"' >>$P/trigger
echo 'hist:keys=common_pid,lat:sort=lat' >events/synthetic/mlat/trigger
echo -n start >trace_marker
echo -n end >trace_marker
check "each print hist counts its one write" \
	test "$(grep -c 'hitcount: *1$' $P/hist)" = 2
check "the latency reached the synthetic event's hist" \
	grep -q 'hitcount: *1$' events/synthetic/mlat/hist

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
exit 0

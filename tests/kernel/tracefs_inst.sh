#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_inst.sh BUILD_DIR - instances/ of `utrace record
# --tracefs`, as the kernel's: `mkdir instances/NAME` makes a tracefs of
# its own over the same program (its trace, trace_pipe, tracing_on,
# set_event, events/.../enable and filter, trace_marker), two instances
# with different events each see only their own (and what their own
# filter keeps), the top level only its own, a snapshot taken in one
# shows that one's records, tracing_cpumask of one leaves out only its own,
# a marker written in one is in no other, a reader's tracing_on stops
# only its own trace, each has its own set_event_pid and
# set_event_notrace_pid (what one's lists leave out the others still
# get); rmdir is EBUSY while the instance's trace_pipe is open, and an
# instance's events go off in the program with it
# (lib/session/session_inst.c, session_inst_pids.c).
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
E=events/livetp

not() { ! "$@"; }

# wait_for FILE PATTERN: until FILE has a line of PATTERN (10 s at most)
wait_for() {
	for _ in $(seq 200); do grep -q "$2" "$1" && return 0; sleep 0.05; done
	return 1
}

check "instances/ is a directory, empty" test -d instances -a -z "$(ls instances)"
mkdir instances/a instances/b
check "mkdir makes instances a and b" test "$(ls instances | tr '\n' ' ')" = "a b "
check "mkdir of one that is there fails" sh -c '! mkdir instances/a 2>/dev/null'
check "mkdir elsewhere fails" sh -c '! mkdir events/x 2>/dev/null'
check "an instance has its own trace, trace_pipe, tracing_on, set_event, events" \
	test -f instances/a/trace -a -f instances/a/trace_pipe -a -f instances/a/tracing_on \
	-a -f instances/a/set_event -a -f instances/a/current_tracer -a -f $E/lt_tick/enable \
	-a -f instances/a/$E/lt_tick/enable -a -d instances/a/options
check "... and not the top level's README, dynamic_events, available_events" \
	test ! -e instances/a/README -a ! -e instances/a/dynamic_events \
	-a ! -e instances/a/available_events
check "a new instance traces (tracing_on 1) with nop" \
	test "$(cat instances/a/tracing_on) $(cat instances/a/current_tracer)" = "1 nop"

echo livetp:lt_tick >instances/a/set_event
echo 1 >instances/b/$E/lt_work/enable
check "a's set_event lists lt_tick" test "$(cat instances/a/set_event)" = livetp:lt_tick
check "b's lt_work enable is 1, its lt_tick 0" \
	test "$(cat instances/b/$E/lt_work/enable)$(cat instances/b/$E/lt_tick/enable)" = 10
check "the top level's set_event is still empty" test -z "$(cat set_event)"
check "the top level's lt_tick enable is still 0" test "$(cat $E/lt_tick/enable)" = 0
check "a's trace gets lt_tick records" wait_for instances/a/trace ' lt_tick: '
check "b's trace gets lt_work records" wait_for instances/b/trace ' lt_work: '
check "a's trace has no lt_work" not grep -q ' lt_work: ' instances/a/trace
check "b's trace has no lt_tick" not grep -q ' lt_tick: ' instances/b/trace
check "the top level's trace has neither" not grep -q ' lt_' trace

# an instance's own filter: c, with lt_work too, sees every kind
mkdir instances/c
echo 'kind == 1' >instances/b/$E/lt_work/filter
echo 1 >instances/c/$E/lt_work/enable
check "b's filter reads back" test "$(cat instances/b/$E/lt_work/filter)" = 'kind == 1'
check "... c's is none" test "$(cat instances/c/$E/lt_work/filter)" = none
check "... and the top level's none" test "$(cat $E/lt_work/filter)" = none
echo >instances/b/trace
check "b's filter keeps kind 1" wait_for instances/b/trace ' lt_work: .*kind=1'
check "c gets kinds 0 and 2" wait_for instances/c/trace ' lt_work: .*kind=2'
check "... and b's trace has no other kind" not grep -q 'kind=[02]' instances/b/trace
rmdir instances/c
check "rmdir of c: b's lt_work stays on" test "$(cat instances/b/$E/lt_work/enable)" = 1

echo livetp:lt_tick >set_event
check "the top level's own lt_tick is in its trace" wait_for trace ' lt_tick: '
check "... and b's lt_work is not" not grep -q ' lt_work: ' trace

# an instance's own set_event_pid and set_event_notrace_pid: the records
# one reader's lists leave out are still there for the others
mkdir instances/p
echo 1 >instances/p/$E/lt_tick/enable
TID=$(sed -n 's/^ *ltp-\([0-9]*\) .*/\1/p' trace | head -1)
check "p has its own set_event_pid, set_event_notrace_pid, options/event-fork (0)" \
	test -f instances/p/set_event_pid -a -f instances/p/set_event_notrace_pid \
	-a "$(cat instances/p/options/event-fork)" = 0
echo "$TID" >instances/p/set_event_pid
check "p's set_event_pid reads back the program's thread ($TID)" \
	test -n "$TID" -a "$(cat instances/p/set_event_pid)" = "$TID"
check "... the top level's is still empty" test -z "$(cat set_event_pid)"
echo >instances/p/trace
check "p, the program's thread listed, gets its lt_tick" wait_for instances/p/trace ' lt_tick: '
echo 4000000 >instances/p/set_event_pid # no thread's id
echo >instances/p/trace
echo >trace
check "p lists another thread: the top level still gets lt_tick" wait_for trace ' lt_tick: '
check "... and p none" not grep -q ' lt_tick: ' instances/p/trace
echo >instances/p/set_event_pid
echo "$TID" >instances/p/set_event_notrace_pid
echo >instances/p/trace
echo >trace
check "p's set_event_notrace_pid has the thread: the top level still gets lt_tick" \
	wait_for trace ' lt_tick: '
check "... and p none" not grep -q ' lt_tick: ' instances/p/trace
echo >instances/p/set_event_notrace_pid
echo 4000000 >set_event_pid
check "the top level's set_event_pid is its own" \
	test "$(cat set_event_pid)/$(cat instances/p/set_event_pid)" = 4000000/
echo >trace
echo >instances/p/trace
check "the top level lists another thread: p still gets lt_tick" \
	wait_for instances/p/trace ' lt_tick: '
check "... and the top level none" not grep -q ' lt_tick: ' trace
echo >set_event_pid
rmdir instances/p

# tracing_cpumask: an instance that leaves out every CPU sees nothing new,
# the others go on
echo 0 >instances/b/tracing_cpumask
check "b's tracing_cpumask reads 0" test "$(cat instances/b/tracing_cpumask)" = 0
check "... the top level's is still all" test "$(cat tracing_cpumask)" != 0
echo >instances/b/trace
echo >instances/a/trace
check "a still gets lt_tick" wait_for instances/a/trace ' lt_tick: '
check "b, every CPU out, gets no lt_work" not grep -q ' lt_work: ' instances/b/trace
cat tracing_cpumask >instances/b/tracing_cpumask
check "b gets lt_work again with its CPUs back" wait_for instances/b/trace ' lt_work: '

# snapshot: of all the buffers, shown through the instance that took it
echo 1 >instances/a/snapshot
check "a's snapshot holds a's lt_tick" grep -q ' lt_tick: ' instances/a/snapshot
check "... and a's records only (no lt_work)" not grep -q ' lt_work: ' instances/a/snapshot
check "the top level took none: its snapshot is freed" grep -q 'Snapshot is freed' snapshot
check "nor did b" grep -q 'Snapshot is freed' instances/b/snapshot
echo 1 >snapshot
check "the top level's own snapshot has its lt_tick" grep -q ' lt_tick: ' snapshot
check "... and not b's lt_work" not grep -q ' lt_work: ' snapshot
check "... and a's is still a's" grep -q ' lt_tick: ' instances/a/snapshot

echo "only in a" >instances/a/trace_marker
check "a marker written in a is in a's trace" grep -q 'tracing_mark_write: only in a' instances/a/trace
check "... not in b's" not grep -q 'only in a' instances/b/trace
check "... nor in the top level's" not grep -q 'only in a' trace
echo "only at the top" >trace_marker
check "a marker of the top level is in its trace" grep -q 'only at the top' trace
check "... not in a's" not grep -q 'only at the top' instances/a/trace

echo 0 >instances/b/tracing_on
check "b's tracing_on is 0, a's and the top level's 1" \
	test "$(cat instances/b/tracing_on)$(cat instances/a/tracing_on)$(cat tracing_on)" = 011
echo >instances/b/trace
echo >instances/a/trace
check "a still gets records" wait_for instances/a/trace ' lt_tick: '
check "b, off and cleared, gets none" not grep -q ' lt_' instances/b/trace

# trace_pipe: a reader of a's keeps it (EBUSY), as the kernel's
cat instances/a/trace_pipe >"$T/pipe" 2>/dev/null &
PP=$!
check "a's trace_pipe gives a's records" wait_for "$T/pipe" ' lt_tick: '
check "... and none of b's" not grep -q ' lt_work: ' "$T/pipe"
check "rmdir of a is EBUSY while its trace_pipe is open" \
	sh -c 'rmdir instances/a 2>&1 | grep -q "Device or resource busy"'
kill "$PP"
wait "$PP" 2>/dev/null
ok=1
for _ in $(seq 100); do rmdir instances/a 2>/dev/null && ok=0 && break; sleep 0.05; done
check "rmdir of a once the reader is gone" test $ok = 0
check "a is gone" test ! -e instances/a -a "$(ls instances)" = b
check "the top level keeps its lt_tick (a had it too)" test "$(cat $E/lt_tick/enable)" = 1
echo 1 >instances/b/tracing_on
rmdir instances/b
check "rmdir of b" test -z "$(ls instances)"
echo >trace
check "the top level's lt_tick goes on" wait_for trace ' lt_tick: '
check "the top level's lt_work is 0 once b, which had it, went" \
	test "$(cat $E/lt_work/enable)" = 0

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
"$U" report -i "$T/ltp.dat" >"$T/report" 2>&1
check "the file holds a's and b's records (one buffer for all)" \
	sh -c "grep -q ' lt_work: ' '$T/report' && grep -q 'only in a' '$T/report'"
exit 0

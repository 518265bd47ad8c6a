#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_ktrig.sh BUILD_DIR - the trigger commands other
# than hist on kernel events of the live tracefs (issue 23; lib/record/
# recorder_ktrig.c runs them in the merge of the kernel's records):
# `utrace record -e sched:sched_switch -e sched:sched_waking --tracefs
# DIR -- ltp`, ltp a traced program of user events (livetp:lt_tick,
# lt_work) that sleeps a millisecond per round, so sched_switch fires
# all the time.  On events/sched/sched_switch/trigger, as the kernel:
#   traceoff turns tracing_on to 0 and no record is kept after it;
#   traceon turns it back on; traceoff:1 fires once (count=0 listed
#   after, tracing_on written 1 again stays 1); `traceoff if FILTER`
#   fires only on the records the filter takes; each is listed as the
#   kernel lists it and `!` in that form removes it
#   enable_event:livetp:lt_tick:1 switches a user event on (its records
#   are in trace); enable_event and disable_event of a kernel event
#   (sched_waking) switch it as its enable file shows (1*, 0*), and no
#   sched_waking record is kept once it is off
#   snapshot:1 takes one snapshot, which holds the sched_switch records
#   `stacktrace:2 if prev_comm == "ltp"` keeps the kernel's stack (its own
#   stacktrace trigger, armed in the kernel instance) after two of ltp's
#   sched_switch records, no more
# and on events/ftrace/print/trigger (trace_marker's event, in the merge
# when kernel events are recorded) traceoff, plain or `if buf ==`,
# fires in the marker write itself: tracing_on reads 0 right after it.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"
need_root "kernel events need root"
find_tracefs
[ -n "$TR" ] && [ -r "$TR/events/sched/sched_switch/id" ] ||
	unsupported "no tracefs with sched:sched_switch"

live_tmp
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/kernel" -o "$T/ltp" \
	"$ROOT/tests/kernel/ltp.c" ||
	{ notok "build the tracepoint program"; exit 1; }
"$U" record -p nop -e sched:sched_switch -e sched:sched_waking --tracefs "$T/mnt" -o "$T/k.dat" -- "$T/ltp" "$T/stop" >"$T/rec.out" 2>&1 &
RP=$!
for _ in $(seq 200); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1
S=events/sched/sched_switch/trigger
P=events/ftrace/print/trigger
W=events/sched/sched_waking
lines() { grep -c "$1" trace; }
# the count of lines matching $1 in trace grows within 10 s
more_than() { test "$(lines "$1")" -gt "$2"; }
grows() { until_ok 100 more_than "$1" "$(lines "$1")"; }
is_on() { test "$(cat tracing_on)" = "$1"; }
listed() { grep -qxF "$1" $S; }
none_listed() { grep -q '^# Available triggers:' "$1"; }

check "sched_switch records are kept" grows 'sched_switch:'

# ---- traceoff, traceon ------------------------------------------------
check "traceoff is taken on sched_switch" sh -c "echo traceoff >$S"
check "... and listed as traceoff:unlimited" listed 'traceoff:unlimited'
check "... tracing_on reads 0 once it fired" until_ok 100 is_on 0
a=$(grep -vc '^#' trace)
"$(command -v sleep)" 0.3
b=$(grep -vc '^#' trace)
check "... no record is kept after it ($a lines, then $b)" test "$a" = "$b"
check "... '!traceoff:unlimited' removes it" sh -c "echo '!traceoff:unlimited' >>$S"
check "... the file lists none then" none_listed $S
check "traceon is taken" sh -c "echo traceon >$S"
check "... tracing_on reads 1 once it fired" until_ok 100 is_on 1
check "... records are kept again" grows 'sched_switch:'
echo '!traceon' >>$S

# ---- a count, a filter ------------------------------------------------
echo >trace # (each read of trace reads it all)
check "traceoff:1 is taken" sh -c "echo traceoff:1 >$S"
check "... tracing_on reads 0 once it fired" until_ok 100 is_on 0
check "... listed as traceoff:count=0" listed 'traceoff:count=0'
echo 1 >tracing_on
check "... used up: tracing_on written 1 stays 1 as records come" grows 'sched_switch:'
check "... and reads 1" is_on 1
echo '!traceoff:count=0' >>$S
check "a filtered traceoff is taken" sh -c "echo 'traceoff if next_comm == \"nobody\"' >$S"
check "... listed with its filter" listed 'traceoff:unlimited if next_comm == "nobody"'
check "... records it does not take do not fire it" grows 'sched_switch:'
check "... tracing_on still reads 1" is_on 1
echo '!traceoff if next_comm == "nobody"' >>$S
echo 'traceoff if next_comm == "ltp"' >$S
check "... one whose filter takes ltp's switches fires" until_ok 100 is_on 0
echo '!traceoff' >>$S
none_listed $S || notok "the filtered traceoffs were not removed: $(tr '\n' ';' <$S)"
echo 1 >tracing_on

# ---- enable_event, disable_event ---------------------------------------
echo >trace
echo 0 >events/livetp/lt_tick/enable
check "a user event switched off reads 0" grep -qx 0 events/livetp/lt_tick/enable
check "enable_event of a user event is taken" \
	sh -c "echo enable_event:livetp:lt_tick:1 >$S"
check "... the user event reads 1* once it fired" \
	until_ok 100 grep -qx '1\*' events/livetp/lt_tick/enable
check "... listed as enable_event:livetp:lt_tick:count=0" \
	listed 'enable_event:livetp:lt_tick:count=0'
check "... its records are in trace" grows 'lt_tick:'
echo '!enable_event:livetp:lt_tick:count=0' >>$S
echo 0 >$W/enable
check "enable_event of a kernel event is taken" \
	sh -c "echo enable_event:sched:sched_waking >$S"
check "... the kernel event reads 1* once it fired" until_ok 100 grep -qx '1\*' $W/enable
check "... its records are kept" grows 'sched_waking:'
echo '!enable_event:sched:sched_waking' >>$S
check "disable_event of a kernel event is taken" \
	sh -c "echo disable_event:sched:sched_waking >$S"
check "... the kernel event reads 0* once it fired" until_ok 100 grep -qx '0\*' $W/enable
a=$(lines 'sched_waking:')
grows 'sched_switch:'
b=$(lines 'sched_waking:')
check "... none of its records is kept after it ($a, then $b)" test "$a" = "$b"
echo '!disable_event:sched:sched_waking:unlimited' >>$S

# ---- snapshot ----------------------------------------------------------
echo >trace
check "snapshot:1 is taken" sh -c "echo snapshot:1 >$S"
check "... listed as snapshot:count=0 once it fired" until_ok 100 listed 'snapshot:count=0'
check "... the snapshot holds the sched_switch records" grep -q 'sched_switch:' snapshot
echo '!snapshot' >>$S
none_listed $S || notok "the triggers were not all removed: $(tr '\n' ';' <$S)"

# ---- stacktrace --------------------------------------------------------
echo >trace
check "stacktrace:2 with a filter is taken" \
	sh -c "echo 'stacktrace:2 if prev_comm == \"ltp\"' >$S"
check "... listed as stacktrace:count=0 once it fired twice" \
	until_ok 100 listed 'stacktrace:count=0 if prev_comm == "ltp"'
grows 'sched_switch:'
check "... trace holds the 2 stacks, no more ($(lines '<stack trace>'))" \
	test "$(lines '<stack trace>')" = 2
check "... each the kernel's, after an ltp sched_switch" \
	test "$(grep -A1 '<stack trace>' trace | grep -c '^ => ')" = 2 -a \
	"$(grep -B1 '<stack trace>' trace | grep -c 'sched_switch: prev_comm=ltp ')" = 2
echo '!stacktrace:count=0 if prev_comm == "ltp"' >>$S
none_listed $S || notok "the stacktrace was not removed: $(tr '\n' ';' <$S)"

# ---- ftrace:print (trace_marker) ---------------------------------------
check "traceoff is taken on ftrace:print" sh -c "echo traceoff >$P"
echo hello >trace_marker
check "... a marker write fires it in the write: tracing_on reads 0" is_on 0
echo '!traceoff' >>$P
echo 1 >tracing_on
echo 'traceoff if buf == "stop"' >$P
echo go >trace_marker
check "... a filtered one: a write it does not take leaves tracing_on 1" is_on 1
echo stop >trace_marker
check "... the one it takes turns it to 0" is_on 0
echo after 2>/dev/null >trace_marker # (EBADF: the buffer is off, as the kernel says)
check "... the write after it is not kept" sh -c '! grep -q "tracing_mark_write: after" trace'
echo '!traceoff' >>$P
echo 1 >tracing_on

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the recording ends well" test $? -eq 0
RP=
exit 0

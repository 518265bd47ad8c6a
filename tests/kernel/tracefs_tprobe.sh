#!/bin/bash
# tests/kernel/tracefs_tprobe.sh BUILD_DIR - the live tracefs's tracepoint
# probes (`t:`, the kernel's fprobe on a tracepoint, in dynamic_events) on
# a running program with two static tracepoints (tests/kernel/ltp.c): the
# command line's t: probe refused without --tracefs, listed and recording
# with it; a t: probe on each is listed in the kernel's format (default group
# `tracepoints`, default name the tracepoint's); enabled while the
# tracepoint's own event stays off, it records every hit with $argN the
# tracepoint's arguments (lt_work(n, kind): kind is n % 3) and the
# tracepoint writes no record of its own; a tracepoint the program does
# not have and a bad type word fail with the kernel's error_log entries
# (trace_fprobe, caret columns); README lists the syntax; removing it
# stops its records.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/kernel" -o "$T/ltp" \
	"$ROOT/tests/kernel/ltp.c" ||
	{ notok "build the tracepoint program"; exit 1; }
"$U" record --probe 't lt_tick' -o "$T/no.dat" -- /bin/true >"$T/no.out" 2>&1
check "a command line's t: probe without --tracefs is refused (no tracepoint jump is on)" \
	grep -q "a tracepoint probe (t:) needs --tracefs" "$T/no.out"
"$U" record -p nop --probe 't:cl/tick lt_tick n=$arg1:s32' --tracefs "$T/mnt" -o "$T/ltp.dat" \
	-- "$T/ltp" "$T/stop" >"$T/ltp.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1
check "the command line's t: probe is listed" test "$(cat dynamic_events)" = "t:cl/tick lt_tick n=\$arg1:s32"
echo 1 >events/cl/tick/enable
trace_shows "$T/t0" ' tick: ' 100
check "... and records the tracepoint's hits once enabled" grep -q ' tick: (__utrace_do_lt_tick+0x0/0x[0-9a-f]*) n=[0-9]' "$T/t0"
echo 0 >events/cl/tick/enable

check "README lists the tracepoint probe syntax" \
	grep -qF 't[:[<group>/][<event>]] <tracepoint> [<args>]' README
echo 't:mygrp/work lt_work n=$arg1:s32 kind=$arg2:s32' >>dynamic_events
check "a t: probe on a tracepoint is added" test $? -eq 0
echo 't lt_tick' >>dynamic_events
check "one with the default group and name is added" test $? -eq 0
check "dynamic_events lists them in the kernel's format" test "$(cat dynamic_events)" = \
	"t:cl/tick lt_tick n=\$arg1:s32
t:mygrp/work lt_work n=\$arg1:s32 kind=\$arg2:s32
t:tracepoints/lt_tick lt_tick"
check "their events are under events/" \
	test -f events/mygrp/work/format -a -f events/tracepoints/lt_tick/format
check "the tracepoint's own event stays off" test "$(cat events/livetp/lt_work/enable)" = 0

echo 1 >events/mygrp/work/enable
trace_shows "$T/t1" ' work: ' 100
check "the enabled t: probe records the tracepoint's hits" grep -q ' work: ' "$T/t1"
grep ' work: ' "$T/t1" | sed 's/.* n=\([0-9]*\) kind=\([0-9]*\)$/\1 \2/' >"$T/args"
check "its \$argN are the tracepoint's arguments (kind = n % 3 on every line)" \
	test -s "$T/args" -a -z "$(awk '$2 != $1 % 3 || NF != 2' "$T/args")"
check "the tracepoint writes no record of its own" test -z "$(grep ' lt_work: ' "$T/t1")"
check "the probe that is off records nothing" test -z "$(grep ' lt_tick: ' "$T/t1")"

echo 't nosuch_tp' >>dynamic_events 2>/dev/null
check "a tracepoint the program does not have is refused" test $? -ne 0
check "... with the kernel's error_log entry, caret under it" \
	errlog_is trace_fprobe "Tracepoint is not found" "t nosuch_tp" 2
echo 't1 lt_tick' >>dynamic_events 2>/dev/null
check "a t: with a number is refused" test $? -ne 0
check "... as BAD_MAXACT_TYPE at column 1" \
	errlog_is trace_fprobe "Maxactive is only for function exit" "t1 lt_tick" 1
echo 't lt-tick' >>dynamic_events 2>/dev/null
check "a tracepoint name with a '-' is refused at the '-'" \
	errlog_is trace_fprobe "Invalid character in tracepoint name" "t lt-tick" 4

echo 0 >events/mygrp/work/enable
echo '-:mygrp/work' >>dynamic_events
check "a disabled t: probe is removed" test "$(cat dynamic_events)" = "t:cl/tick lt_tick n=\$arg1:s32
t:tracepoints/lt_tick lt_tick"
echo >trace
sleep 0.3
check "its records stop" test -z "$(grep ' work: ' trace)"
touch "$T/stop"
cd / && wait "$RP"
check "the program ends well" test $? -eq 0
RP=
exit 0

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_inst_trig.sh BUILD_DIR - an instance's own
# triggers (lib/session/session_inst_trig.c), as the kernel's act on
# their trace_array: a trigger written into instances/NAME/events/S/E/
# trigger or instances/NAME/set_ftrace_filter acts on that instance
# (traceoff and traceon its tracing_on, with their :N counts;
# enable_event and disable_event its event, shown "1*" / "0*";
# stacktrace a stack shown in its trace, not the top level's), is listed
# in that instance's files only (the kernel's text) and removed with
# "!..."; the top level's triggers and tracing go on as before (an
# instance's hist, snapshot, enable_hist and disable_hist triggers:
# tracefs_inst_hist.sh), but the top level's traceoff and traceon act
# on its own tracing_on, the instance's tracing going on, as the
# kernel's; rmdir takes its triggers with it.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cc -O2 -fno-omit-frame-pointer $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/kernel" \
	-o "$T/ltp" "$ROOT/tests/kernel/ltp.c" ||
	{ notok "build the tracepoint program"; exit 1; }
"$U" record -p nop --tracefs "$T/mnt" -o "$T/ltp.dat" -- "$T/ltp" "$T/stop" >"$T/ltp.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1
E=events/livetp
A=instances/a

not() { ! "$@"; }
# is FILE VALUE: FILE reads VALUE, within 10 s (read again each time)
is() { until_ok 100 reads_as "$1" "$2"; }
# count FILE: the lines of FILE that are records
count() { grep -vc '^#' "$1"; }
# more_than FILE N: FILE has more than N records now
more_than() { test "$(count "$1")" -gt "$2"; }

mkdir $A
echo 1 >$A/$E/lt_tick/enable
check "the instance traces its lt_tick" until_ok 100 grep -q ' lt_tick: ' $A/trace

# traceoff in the instance's trigger file: its tracing_on, not the top level's
echo 'traceoff if n > 0' >$A/$E/lt_tick/trigger
check "the trigger is listed in the instance's file" \
	test "$(grep -v '^#' $A/$E/lt_tick/trigger)" = 'traceoff:unlimited if n > 0'
check "... and not in the top level's" test -z "$(grep -v '^#' $E/lt_tick/trigger)"
check "lt_tick's enable in the instance is 1* (a trigger of its own)" \
	test "$(cat $A/$E/lt_tick/enable)" = '1*'
check "the top level's lt_tick enable is 0, no star" test "$(cat $E/lt_tick/enable)" = 0
check "traceoff fired: the instance's tracing_on is 0" is $A/tracing_on 0
check "the top level's tracing_on is still 1" test "$(cat tracing_on)" = 1
n1=$(count $A/trace)
sleep 0.3
check "the instance's trace stops growing" test "$(count $A/trace)" = "$n1"
echo 1 >$E/lt_work/enable
check "the top level goes on tracing (lt_work)" until_ok 100 grep -q ' lt_work: ' trace
echo 0 >$E/lt_work/enable
echo '!traceoff:unlimited if n > 0' >$A/$E/lt_tick/trigger
check "!traceoff:unlimited removes it" test -z "$(grep -v '^#' $A/$E/lt_tick/trigger)"
check "... and the star" test "$(cat $A/$E/lt_tick/enable)" = 1

# traceoff:2: twice, counted in the instance's file
echo 'traceoff:2' >$A/$E/lt_tick/trigger
for i in 1 2; do
	echo 1 >$A/tracing_on
	check "traceoff:2 fires ($i)" is $A/tracing_on 0
done
check "its count is used up: traceoff:count=0" \
	test "$(grep -v '^#' $A/$E/lt_tick/trigger)" = traceoff:count=0
echo 1 >$A/tracing_on
sleep 0.3
check "... and it fires no more" test "$(cat $A/tracing_on)" = 1
echo '!traceoff:count=0' >$A/$E/lt_tick/trigger

# enable_event / disable_event: the instance's event
echo 'enable_event:livetp:lt_work' >$A/$E/lt_tick/trigger
check "enable_event turns the instance's lt_work on: 1*" is $A/$E/lt_work/enable '1*'
check "the top level's lt_work stays 0" test "$(cat $E/lt_work/enable)" = 0
check "the instance's trace gets lt_work" until_ok 100 grep -q ' lt_work: ' $A/trace
echo >trace
sleep 0.2
check "the top level's trace has none" not grep -q ' lt_work: ' trace
echo '!enable_event:livetp:lt_work:unlimited' >$A/$E/lt_tick/trigger
echo 'disable_event:livetp:lt_work:1' >$A/$E/lt_tick/trigger
check "disable_event turns it off: 0*" is $A/$E/lt_work/enable '0*'
check "disable_event:1 is listed with its count used" \
	test "$(grep -v '^#' $A/$E/lt_tick/trigger)" = 'disable_event:livetp:lt_work:count=0'
echo '!disable_event:livetp:lt_work:1' >$A/$E/lt_tick/trigger
check "... and removed" test -z "$(grep -v '^#' $A/$E/lt_tick/trigger)"

# function commands in the instance's set_ftrace_filter
fn=$(grep -m1 -x 'main' available_filter_functions)
echo "$fn:traceoff" >$A/set_ftrace_filter 2>/dev/null
check "FUNC:traceoff is taken by the instance's set_ftrace_filter" \
	test "$(grep -v '^#' $A/set_ftrace_filter)" = "main:traceoff:unlimited"
check "... and not listed in the top level's" not grep -q traceoff set_ftrace_filter
echo '!main:traceoff' >>$A/set_ftrace_filter
check "!main:traceoff removes it" not grep -q traceoff $A/set_ftrace_filter

# stacktrace: in the instance's trace only
echo 1 >$A/tracing_on
echo >$A/trace
echo >trace
echo 'stacktrace:1' >$A/$E/lt_tick/trigger
check "the instance's stacktrace shows in its trace" \
	until_ok 100 grep -q '<stack trace>' $A/trace
check "... and not in the top level's" not grep -q '<stack trace>' trace
echo '!stacktrace:1' >$A/$E/lt_tick/trigger

# the top level's traceoff and traceon: its own tracing_on, as the
# kernel's top-level buffer; the instance goes on
echo 1 >$A/tracing_on
echo 'traceoff' >$E/lt_tick/trigger
check "the top level's traceoff fires: its tracing_on is 0" is tracing_on 0
check "the instance's tracing_on stays 1" test "$(cat $A/tracing_on)" = 1
n1=$(count $A/trace)
check "the instance's trace goes on growing ($n1 records)" \
	until_ok 100 more_than $A/trace "$n1"
echo 1 >$E/lt_work/enable
echo >trace
sleep 0.3
check "the top level's trace stays empty" test "$(count trace)" = 0
echo '!traceoff' >$E/lt_tick/trigger
echo 'traceon' >$E/lt_tick/trigger
check "the top level's traceon, the instance's tracing on all along: its tracing_on is 1" \
	is tracing_on 1
check "the top level's trace gets its records again" until_ok 100 grep -q ' lt_work: ' trace
echo '!traceon' >$E/lt_tick/trigger
echo 0 >$E/lt_work/enable

# the top level's triggers as before, and rmdir takes the instance's
echo 'traceoff' >$A/$E/lt_tick/trigger
check "the instance's traceoff fires once more" is $A/tracing_on 0
echo 0 >tracing_on
echo 'traceon' >$E/lt_tick/trigger
check "the top level's traceon turns its tracing_on back on" is tracing_on 1
echo '!traceon' >$E/lt_tick/trigger
rmdir $A
mkdir $A
check "a new instance has no trigger of the old one's" \
	test -z "$(grep -v '^#' $A/$E/lt_tick/trigger)"
echo 1 >$A/$E/lt_tick/enable
sleep 0.3
check "... and its tracing stays on" test "$(cat $A/tracing_on)" = 1
rmdir $A

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
exit 0

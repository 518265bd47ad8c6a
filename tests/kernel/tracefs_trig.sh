#!/bin/bash
# tests/kernel/tracefs_trig.sh BUILD_DIR - the live tracefs's trigger
# files beyond adding and removing (tracefs.sh does those), on a running
# program with two tracepoints: a hist trigger paused, continued and
# cleared by writing it again with :pause, :cont, :clear (one line kept,
# "[paused]" in its listing and in hist, the table emptied), a hist
# trigger counting on while tracing_on is 0 (as the kernel's), :cont and
# :clear of no trigger (ENOENT and the kernel's error_log text), `>` with
# :clear (the open removed the trigger: ENOENT, as the kernel); the :N of
# the other triggers read as what is left (stacktrace, snapshot,
# enable_event used up to count=0, traceon keeping its 5 while it changes
# nothing, then taking one when a traceoff:1 turned tracing off); an
# event with a trigger, or that an enable_event/disable_event names,
# reading "0*" or "1*" (the kernel's soft mode) until the trigger goes.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/kernel" -o "$T/ltp" \
	"$ROOT/tests/kernel/ltp.c" ||
	{ notok "build the tracepoint program"; exit 1; }
"$U" record --tracefs "$T/mnt" -o "$T/ltp.dat" -- "$T/ltp" "$T/stop" >"$T/ltp.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1
W=events/livetp/lt_work
K=events/livetp/lt_tick

# untrigger FILE: every trigger of FILE removed in the form it prints
# (the kernel's selftests' reset_trigger: `>` removes only hist ones)
untrigger() { grep -v '^#' "$1" | while read -r t; do echo "!${t%% \[*}" >>"$1"; done; }

# hits FILE: the Totals' Hits of a hist file
hits() { awk '/^    Hits:/ { print $2 }' "$1"; }
hist_counts() { h=$(hits "$W/hist"); test -n "$h" && test "$h" -gt "$1"; }

# ---- :pause, :cont, :clear --------------------------------------------
spec='hist:keys=kind:vals=hitcount:sort=hitcount:size=2048'
echo 'hist:keys=kind' >>"$W/trigger"
check "a hist trigger counts" until_ok 100 hist_counts 0
echo 'hist:keys=kind:pause' >>"$W/trigger"
check ":pause of the same trigger pauses it, adding none" \
	test "$(cat "$W/trigger")" = "$spec [paused]"
cat "$W/hist" >"$T/p1"
check "hist says [paused]" grep -qx "# trigger info: $spec \[paused\]" "$T/p1"
sleep 0.3
check "a paused table counts nothing ($(hits "$T/p1") hits)" \
	test "$(hits "$W/hist")" = "$(hits "$T/p1")"
echo 'hist:keys=kind:clear' >>"$W/trigger"
cat "$W/hist" >"$T/p2"
check ":clear empties the table" test "$(hits "$T/p2") $(awk '/^    Entries:/ { print $2 }' "$T/p2")" = "0 0"
check "... and leaves it paused" test "$(cat "$W/trigger")" = "$spec [paused]"
echo 'hist:keys=kind:cont' >>"$W/trigger"
check ":cont makes it active again" test "$(cat "$W/trigger")" = "$spec [active]"
check "... and it counts again" until_ok 100 hist_counts 0
check ":continue is the same" sh -c "echo 'hist:keys=kind:pause' >>'$W/trigger' &&
	echo 'hist:keys=kind:continue' >>'$W/trigger' && grep -q 'active' '$W/trigger'"
echo >error_log
echo 'hist:keys=kind:size=4096' >>"$W/trigger" 2>"$T/e1"
check "the same keys with another size= is the same trigger: EEXIST" grep -q 'File exists' "$T/e1"
bad='hist:keys=kind:clear if kind == 1'
echo "$bad" >>"$W/trigger" 2>"$T/e2"
check ":clear of no such trigger (another filter) fails with ENOENT" \
	grep -q 'No such file or directory' "$T/e2"
check "error_log: Can't clear or continue a nonexistent hist trigger" \
	errlog_is hist:livetp:lt_work "Can't clear or continue a nonexistent hist trigger" "$bad" 0
echo 'hist:keys=n:cont' >>"$W/trigger" 2>"$T/e3"
check ":cont of no such trigger fails with ENOENT" grep -q 'No such file or directory' "$T/e3"
check "neither was added" test "$(cat "$W/trigger")" = "$spec [active]"
echo 'hist:keys=kind:pause if kind == 2' >>"$W/trigger"
check ":pause of none adds a paused one" test "$(sed -n 2p "$W/trigger")" = \
	"$spec if kind == 2 [paused]"
check "... with an empty table" test "$(sed -n '/if kind == 2/,$p' "$W/hist" | hits /dev/stdin)" = 0
echo 'hist:keys=kind:clear' >"$W/trigger" 2>"$T/e4"
check "> with :clear: the open removed every trigger, so ENOENT (the kernel's)" \
	grep -q 'No such file or directory' "$T/e4"
check "... and no trigger is left" grep -q '^# Available triggers:' "$W/trigger"

# ---- tracing_on 0 stops the records, not the hist triggers (the kernel's)
echo 'hist:keys=kind' >"$W/trigger"
check "a new hist trigger counts" until_ok 100 hist_counts 0
echo 0 >tracing_on
h0=$(hits "$W/hist")
check "with tracing_on 0 it goes on counting (past $h0 hits)" until_ok 100 hist_counts "$h0"
echo 1 >tracing_on
echo >"$W/trigger"

# ---- :N read as what is left --------------------------------------------
echo 'traceon:5' >"$W/trigger"
echo 'stacktrace:2 if kind == 1' >>"$W/trigger"
echo 'snapshot:2 if kind == 2' >>"$W/trigger"
used_up() { test "$(grep -c ':count=0 ' "$W/trigger")" = 2; }
check "stacktrace:2 and snapshot:2 are used up to count=0" until_ok 100 used_up
check "the listing reads what is left" test "$(cat "$W/trigger")" = "traceon:count=5
stacktrace:count=0 if kind == 1
snapshot:count=0 if kind == 2"
echo 'traceoff:1 if kind == 2' >>"$W/trigger"
# traceoff turns tracing off once; the next hit's traceon:5, which
# changes something now, turns it on again and uses one of its 5
fired() { grep -q '^traceoff:count=0 ' "$W/trigger" && grep -qx 'traceon:count=4' "$W/trigger"; }
check "traceoff:1 fires, then traceon takes one of its 5" until_ok 100 fired
check "... and tracing is on again" test "$(cat tracing_on)" = 1
untrigger "$W/trigger"
echo 1 >tracing_on

# ---- soft mode: "0*" / "1*" -------------------------------------------------
check "an event no trigger names reads 0" test "$(cat "$K/enable")" = 0
echo 'enable_event:livetp:lt_tick if n < 0' >>"$W/trigger"
check "named by an enable_event (not fired) it reads 0*" test "$(cat "$K/enable")" = '0*'
check "an event with a trigger of its own reads 0* too" test "$(cat "$W/enable")" = '0*'
echo 1 >"$K/enable"
check "switched on, 1*" test "$(cat "$K/enable")" = '1*'
check "the system's enable has no *" test "$(cat events/livetp/enable)" = X
echo '!enable_event:livetp:lt_tick' >>"$W/trigger"
check "without the trigger, 1" test "$(cat "$K/enable")" = 1
echo 0 >"$K/enable"
echo 'enable_event:livetp:lt_tick:1' >>"$W/trigger"
on_soft() { test "$(cat "$K/enable")" = '1*'; }
check "enable_event:...:1 fires: 1*" until_ok 100 on_soft
check "... and reads count=0" test "$(cat "$W/trigger")" = 'enable_event:livetp:lt_tick:count=0'
echo 'disable_event:livetp:lt_work' >>"$K/trigger"
check "a disable_event's target reads 0* (off, managed)" test "$(cat "$W/enable")" = '0*'
untrigger "$K/trigger"
untrigger "$W/trigger"
check "every trigger gone, no *" test "$(cat "$K/enable")$(cat "$W/enable")" = 10

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
exit 0

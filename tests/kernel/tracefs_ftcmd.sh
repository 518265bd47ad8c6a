#!/bin/bash
# tests/kernel/tracefs_ftcmd.sh BUILD_DIR - set_ftrace_filter's function
# commands on the live tracefs (lib/tracefs/live_ftcmd.c), with tracer
# nop, on kfcmd.c's functions: FUNC:traceoff lists as the kernel lists it
# and turns tracing off every time the function runs, also after
# set_ftrace_filter was written again (the probe behind it keeps its
# call site when the tracer's selection changes); FUNC:traceon turns it
# back on while tracing is off; "!" removes one, a counted one only with
# a param; a glob names each function; :N counts down as the kernel's
# (count=N left); enable_event:SYS:EVENT:N switches an event on (1*);
# a function or command that does not exist is refused; GLOB:mod:LIB of
# a library not loaded is kept and listed as written.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/kernel" -o "$T/kfcmd" \
	"$ROOT/tests/kernel/kfcmd.c" ||
	{ notok "build the program"; exit 1; }
"$U" record -p nop --tracefs "$T/mnt" -o "$T/f.dat" -- "$T/kfcmd" "$T/stop" >"$T/f.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1
F=set_ftrace_filter
is_on() { test "$(cat tracing_on)" = "$1"; }
cmds() { grep -v '^#' $F | tr '\n' ' '; }

# ---- traceoff, traceon -------------------------------------------------
check "FUNC:traceoff is taken" sh -c "echo 'fc_round:traceoff' >$F"
check "listed after the (empty) filter as the kernel lists it" \
	test "$(cat $F)" = "$(printf '#### all functions enabled ####\nfc_round:traceoff:unlimited')"
check "the function's call turns tracing off" until_ok 100 is_on 0
echo 1 >tracing_on
check "... every time" until_ok 100 is_on 0
echo fc_lock >$F
check "a filter written (the tracer's selection applied) leaves it: listed" \
	test "$(cat $F)" = "$(printf 'fc_lock\nfc_round:traceoff:unlimited')"
echo 1 >tracing_on
check "... and firing" until_ok 100 is_on 0
echo '!fc_round:traceoff' >>$F
echo 1 >tracing_on
sleep 0.3
check "'!FUNC:traceoff' removes it: tracing stays on" is_on 1
check "... and the list has no command" test "$(cmds)" = "fc_lock "
echo 0 >tracing_on
echo 'fc_unlock:traceon' >>$F
check "FUNC:traceon turns tracing on from off" until_ok 100 is_on 1
echo '!fc_unlock:traceon' >>$F

# ---- globs and counts ----------------------------------------------------
echo >$F
echo 0 >tracing_on
echo 'fc_*lock:traceoff:2' >>$F
sleep 0.3
check "a glob names each function, with its count (none taken while off)" \
	test "$(cmds)" = "fc_lock:traceoff:count=2 fc_unlock:traceoff:count=2 "
echo 1 >tracing_on
check "... they fire" until_ok 100 is_on 0
echo 1 >tracing_on
until_ok 100 is_on 0
echo 1 >tracing_on
until_ok 100 is_on 0
echo 1 >tracing_on
until_ok 100 is_on 0
counts=$(cmds)
echo 1 >tracing_on
sleep 0.3
check "4 firings between them use up both counts ($counts)" is_on 1
echo '!fc_*lock:traceoff' >>$F
check "'!' without a param leaves the counted ones (the kernel's)" test -n "$(cmds)"
echo '!fc_*lock:traceoff:0' >>$F
check "with one, it removes them" test -z "$(cmds)"

# ---- enable_event --------------------------------------------------------
E=events/livetp/lt_tick/enable
echo 0 >$E
echo 'fc_round:enable_event:livetp:lt_tick:1' >>$F
on_soft() { test "$(cat $E)" = '1*'; }
check "enable_event:SYS:EVENT:1 switches the event on (1*)" until_ok 100 on_soft
check "... listed as the kernel, count=0 left" \
	test "$(cmds)" = "fc_round:enable_event:livetp:lt_tick:count=0 "
echo 0 >$E
sleep 0.3
check "... and fires no more" test "$(cat $E)" = '0*'
echo '!fc_round:enable_event:livetp:lt_tick:1' >>$F
check "removed, the event is no longer managed" test "$(cat $E)" = 0

# ---- refused -------------------------------------------------------------
check "a function that does not exist: EINVAL" \
	sh -c "! echo 'no_such_fn:traceoff' >>$F 2>/dev/null"
check "a command that does not exist: EINVAL" \
	sh -c "! echo 'fc_round:no_such_cmd' >>$F 2>/dev/null"
check "an enable_event without its event: EINVAL" \
	sh -c "! echo 'fc_round:enable_event:livetp' >>$F 2>/dev/null"
check "nothing was added" test -z "$(cmds)"

# ---- :mod: of a library not loaded ---------------------------------------
check "GLOB:mod:LIB of no loaded library is kept" \
	sh -c "echo 'fc_x:mod:libnotyet.so' >$F"
check "... and listed as written" test "$(cat $F)" = "fc_x:mod:libnotyet.so"
check "a plain GLOB that names nothing is still EINVAL" \
	sh -c "! echo 'fc_nothing_*' >>$F 2>/dev/null"
echo >$F

cd "$T" || exit 1
echo 1 >"$T/mnt/tracing_on"
touch "$T/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
exit 0

#!/bin/bash
# tests/kernel/tracefs_dynev.sh BUILD_DIR - the live tracefs's
# dynamic_events and synthetic_events on a running program with three
# threads: the command line's probe listed in the kernel's format; a
# probe and a return probe added while it runs, off until their enable
# says 1, their fetched arguments what the program passes and returns;
# one removed while the threads run through it (the calls go on, the
# program ends well); `>` refused (EBUSY) while one is enabled; bad
# definitions failing with the kernel's error_log text and caret; a
# synthetic event defined, listed, its format served, removed; one fed by
# hist triggers of two probes added live (a $ts0 of the one read by the
# other's onmatch()), with a hist trigger and a filter of its own; and
# the final file decoding every record of the probes added live.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
# func_alpha(7, 1000..1002) and func_beta(x) = 2x: every argument and
# return value is known (func_beta gets 1007..1009, returns 2014..2018)
cat >"$T/dyn.c" <<'PROG'
#include <pthread.h>
#include <unistd.h>
__attribute__((noinline)) int func_alpha(int x, long y) { __asm__ volatile(""); return x + (int)y; }
__attribute__((noinline)) int func_beta(int x) { __asm__ volatile(""); return x * 2; }
static const char *stop;
static void *worker(void *a)
{
	volatile int v = 0;
	while (access(stop, F_OK) != 0) {
		for (int i = 0; i < 30; i++)
			v = func_beta(func_alpha(7, 1000 + i % 3));
		usleep(1000);
	}
	return a;
}
int main(int argc, char **argv)
{
	pthread_t t[2];
	stop = argv[1];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], 0, worker, 0);
	worker(0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], 0);
	return 0;
}
PROG
cc -O2 $("$U" cflags) -pthread -o "$T/dyn" "$T/dyn.c" || { notok "build the program"; exit 1; }

"$U" record -p nop --probe 'p:start/gamma func_beta v=%di:s32' -e start:gamma \
	--tracefs "$T/mnt" -o "$T/dyn.dat" -- "$T/dyn" "$T/stop" >"$T/rec.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -f "$T/mnt/dynamic_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1

check "dynamic_events lists the command line's probe" \
	test "$(cat dynamic_events)" = "p:start/gamma func_beta v=%di:s32"
check "synthetic_events starts empty" test -z "$(cat synthetic_events)"
check "the command line's probe has its format under events/" \
	grep -q 'field:s32 v;' events/start/gamma/format

echo 'p:mygrp/alpha func_alpha x=%di:s32 y=%si:s64' >>dynamic_events
check "a probe is added to the running program" test $? -eq 0
echo 'r:mygrp/beta_ret func_beta ret=$retval:s32' >>dynamic_events
check "a return probe is added" test $? -eq 0
check "dynamic_events lists them in the kernel's format" test "$(cat dynamic_events)" = \
	"p:start/gamma func_beta v=%di:s32
p:mygrp/alpha func_alpha x=%di:s32 y=%si:s64
r:mygrp/beta_ret func_beta ret=\$retval:s32"
check "events/mygrp/ holds both (and the system's enable)" \
	test "$(ls events/mygrp | tr '\n' ' ')" = "alpha beta_ret enable "
check "the new event has the event files" \
	test "$(ls events/mygrp/alpha | tr '\n' ' ')" = "enable filter format hist id trigger "
id=$(cat events/mygrp/alpha/id)
check "its format has its id ($id) and fields" \
	grep -qx "ID: $id" events/mygrp/alpha/format
check "its format has the fetched fields" grep -q 'field:s64 y;' events/mygrp/alpha/format
check "available_events lists it" grep -qx 'mygrp:alpha' available_events
check "a new probe starts disabled" test "$(cat events/mygrp/alpha/enable)" = 0
sleep 0.3
cat trace >"$T/off"
check "a disabled probe records nothing" test "$(grep -c ' alpha: ' "$T/off")" = 0

echo 1 >events/mygrp/alpha/enable
echo 1 >events/mygrp/beta_ret/enable
check "enable reads 1 once written" test "$(cat events/mygrp/alpha/enable)" = 1
check "the probe's records come" trace_shows "$T/t1" ' alpha: '
trace_shows "$T/t1" ' beta_ret: ' >/dev/null
grep ' alpha: ' "$T/t1" >"$T/alpha"
grep ' beta_ret: ' "$T/t1" >"$T/beta"
check "every alpha record has x=7 y=1000..1002 ($(wc -l <"$T/alpha") records)" \
	test -s "$T/alpha" -a -z "$(grep -v 'alpha: (func_alpha+0x0/0x[0-9a-f]*) x=7 y=100[012]$' "$T/alpha")"
check "all three y values are seen" test "$(grep -o 'y=100[012]' "$T/alpha" | sort -u | wc -l)" = 3
check "every return record has ret=2014..2018 ($(wc -l <"$T/beta") records)" \
	test -s "$T/beta" -a -z "$(grep -v 'beta_ret: (worker+0x[0-9a-f]* <- func_beta) ret=201[468]$' "$T/beta")"

# the :char type prints the character in quotes, as the kernel's '%c'
# (libtraceevent has no %c: lib/report/event_print.c; char[N] prints
# {'t','e','s','t'}: tests/ftracetest's kprobe_args_char.tc)
echo 'p:mygrp/ch func_beta c=\116:char' >>dynamic_events
echo 1 >events/mygrp/ch/enable
check "a :char argument prints as the kernel's: c='t'" trace_shows "$T/tc" " ch: (func_beta+0x0/0x[0-9a-f]*) c='t'\$"
echo 0 >events/mygrp/ch/enable
echo '-:mygrp/ch' >>dynamic_events

# mid-function (int3, then a jmp once proved safe) and fprobes, added
# while the threads run: the first instruction after the entry's NOPs
start=$(nm "$T/dyn" | awk '$3 == "func_alpha" { print $1 }')
at=$(objdump -d --no-show-raw-insn "$T/dyn" | awk '/<func_alpha>:/ { f = 1; next }
	f && /^$/ { exit } f && $2 != "nop" { sub(":", "", $1); print $1; exit }')
off=$((0x$at - 0x$start))
echo "p:mygrp/mid func_alpha+$off y=%si:s64" >>dynamic_events
check "a mid-function probe is added (func_alpha+$off)" test $? -eq 0
echo 'f:mygrp/fb func_beta x=$arg1:s32' >>dynamic_events
echo 'f:mygrp/fbx func_beta%return r=$retval:s32' >>dynamic_events
check "fprobes are added and listed" test "$(grep '^f:' dynamic_events)" = \
	"f:mygrp/fb func_beta x=\$arg1:s32
f:mygrp/fbx func_beta%return r=\$retval:s32"
for e in mid fb fbx; do echo 1 >"events/mygrp/$e/enable"; done
echo >trace
trace_shows "$T/t3" ' fbx: ' >/dev/null
trace_shows "$T/t3" ' mid: ' >/dev/null
grep ' mid: ' "$T/t3" >"$T/mid"
check "every mid-function record has y=1000..1002 ($(wc -l <"$T/mid") records)" \
	test -s "$T/mid" -a -z "$(grep -v "mid: (func_alpha+0x$(printf %x "$off")/0x[0-9a-f]*) y=100[012]\$" "$T/mid")"
grep ' fb: ' "$T/t3" >"$T/fb"
check "every fprobe record has x=1007..1009 ($(wc -l <"$T/fb") records)" \
	test -s "$T/fb" -a -z "$(grep -v 'fb: (func_beta+0x0/0x[0-9a-f]*) x=100[789]$' "$T/fb")"
grep ' fbx: ' "$T/t3" >"$T/fbx"
check "every fprobe exit record has r=2014..2018 ($(wc -l <"$T/fbx") records)" \
	test -s "$T/fbx" -a -z "$(grep -v 'fbx: (worker+0x[0-9a-f]* <- func_beta) r=201[468]$' "$T/fbx")"
for e in mid fb fbx; do echo 0 >"events/mygrp/$e/enable"; done
echo '-:mygrp/mid' >>dynamic_events
echo '-:fb' >>dynamic_events
echo '-:mygrp/fbx' >>dynamic_events
check "the mid-function and fprobes are removed while the threads run" \
	test "$(grep -c 'mid\|fb' dynamic_events)" = 0

{ : >dynamic_events; } 2>"$T/busy.err"
check "> dynamic_events while one is enabled fails with EBUSY" \
	grep -q 'Device or resource busy' "$T/busy.err"
check "... and removes nothing" test "$(cat dynamic_events | wc -l)" = 3
echo '-:mygrp/alpha' >>dynamic_events 2>/dev/null
check "an enabled probe cannot be removed" grep -q '^p:mygrp/alpha ' dynamic_events

# removed while three threads call func_alpha in a loop
echo 0 >events/mygrp/alpha/enable
echo '-:mygrp/alpha' >>dynamic_events
check "a disabled probe is removed" test $? -eq 0
check "it leaves dynamic_events" test -z "$(grep alpha dynamic_events)"
check "it leaves events/" test ! -e events/mygrp/alpha
echo >trace
check "the calls go on after the removal" trace_shows "$T/t2" ' beta_ret: '
check "nothing of the removed probe is recorded" test -z "$(grep ' alpha: ' "$T/t2")"

# bad definitions: EINVAL, the kernel's error_log text and caret
echo >error_log
bad='p:mygrp/bad func_alpha x=%zz'
echo "$bad" >>dynamic_events 2>"$T/e1"
check "a bad register fails with EINVAL" grep -q 'Invalid argument' "$T/e1"
check "error_log: Invalid register name, caret under %zz" \
	errlog_is trace_kprobe 'Invalid register name' "$bad" 25
bad='p:mygrp/bad2 no_such_function_xyz x=%di'
echo "$bad" >>dynamic_events 2>"$T/e2"
check "an unknown symbol fails with EINVAL" grep -q 'Invalid argument' "$T/e2"
check "error_log: Invalid probed address or symbol, caret under it" \
	errlog_is trace_kprobe 'Invalid probed address or symbol' "$bad" 13
echo 'p:mygrp/beta_ret func_beta' >>dynamic_events 2>"$T/e3"
check "an event of that name again fails with EEXIST" grep -q 'File exists' "$T/e3"
check "no bad definition was added" test "$(cat dynamic_events | wc -l)" = 2

# synthetic events
echo 'lat_ev u64 lat; pid_t pid' >>synthetic_events
check "a synthetic event is defined while running" test $? -eq 0
check "synthetic_events lists it as the kernel" \
	test "$(cat synthetic_events)" = "$(printf 'lat_ev\tu64 lat; pid_t pid')"
check "dynamic_events lists it with s:" \
	grep -qx "$(printf 's:synthetic/lat_ev\tu64 lat; pid_t pid')" dynamic_events
check "events/synthetic/lat_ev/format has its fields" \
	grep -q 'field:u64 lat;' events/synthetic/lat_ev/format
check "it starts disabled" test "$(cat events/synthetic/lat_ev/enable)" = 0
bad='bad_ev u64 lat; foo_t pid'
echo "$bad" >>synthetic_events 2>"$T/e4"
check "a bad synthetic type fails with EINVAL" grep -q 'Invalid argument' "$T/e4"
check "error_log: Invalid type, caret under it" \
	errlog_is synthetic_events 'Invalid type' "$bad" 16
echo '!lat_ev' >>synthetic_events
check "!NAME removes it" test -z "$(cat synthetic_events)"
check "it leaves events/synthetic/" test ! -e events/synthetic/lat_ev

# a synthetic event defined live, fed by an onmatch() action of hist
# triggers on two probes added live (the kernel's wakeup-latency recipe:
# a timestamp saved in one event's table, read by the other's through
# $ts0 by the same key); the synthetic event's records, its own hist
# trigger and filter
# the other events off: trace holds only call_lat, quick to read
echo 0 >events/mygrp/beta_ret/enable
echo 0 >events/start/gamma/enable
echo 'p:mygrp/a2 func_alpha' >>dynamic_events
echo 'call_lat u64 lat; pid_t pid' >>synthetic_events
ts0='hist:keys=common_pid:ts0=common_timestamp.usecs'
lat='hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:onmatch(mygrp.a2).trace(call_lat,$lat,common_pid)'
echo "$ts0" >>events/mygrp/a2/trigger
check "a hist trigger with a variable is set on a probe added live" test $? -eq 0
check "the probe's enable reads 0*: its trigger runs it (soft mode)" \
	test "$(cat events/mygrp/a2/enable)" = "0*"
echo "$lat" >>events/mygrp/beta_ret/trigger 2>"$T/e5"
check "another event's trigger reads its \$ts0 in onmatch().trace() ($(cat "$T/e5"))" \
	test ! -s "$T/e5"
check "... listed as the kernel prints it" test "$(cat events/mygrp/beta_ret/trigger)" = \
	'hist:keys=common_pid:vals=hitcount:lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global:onmatch(mygrp.a2).trace(call_lat,$lat,common_pid) [active]'
echo 'hist:keys=pid:vals=lat:sort=pid' >>events/synthetic/call_lat/trigger
check "the synthetic event takes a hist trigger of its own" test $? -eq 0
main=
for p in $(pgrep -f "$T/dyn $T/stop"); do
	[ "$(readlink "/proc/$p/exe")" = "$T/dyn" ] && main=$p
done
echo "pid == $main" >events/synthetic/call_lat/filter
check "... and a filter" test $? -eq 0
echo 'hist:keys=common_pid:vals=$nosuch:onmatch(mygrp.a2).trace(call_lat,$nosuch,common_pid)' \
	>>events/mygrp/beta_ret/trigger 2>"$T/e6"
check "a \$var no trigger defines fails with EINVAL" grep -q 'Invalid argument' "$T/e6"
echo 1 >events/synthetic/call_lat/enable
echo >trace
# fired: the synthetic event's own hist counts (a quick read: its table)
fired() {
	for _ in $(seq 100); do
		grep -q '^{ pid: ' events/synthetic/call_lat/hist && return 0
		sleep 0.1
	done
	return 1
}
check "the onmatch() action fires the synthetic event defined live" fired
# trace is made from the whole file so far: few reads, each bounded (the
# records show once their sub-buffer is saved)
for _ in 1 2 3; do
	timeout 120 cat trace >"$T/t5"
	grep -q ' call_lat: ' "$T/t5" && break
	sleep 0.5
done
grep ' call_lat: ' "$T/t5" >"$T/lat"
pids=$(sed 's/.* pid=//' "$T/lat" | sort -u | tr '\n' ' ')
check "every call_lat record has lat=N pid=P of the program ($(wc -l <"$T/lat") records, pids $pids)" \
	test -s "$T/lat" -a -z "$(grep -v 'call_lat: lat=[0-9]* pid=[0-9]*$' "$T/lat")"
check "... all from the filter's thread" test "$pids" = "$main "
cat events/synthetic/call_lat/hist >"$T/sh"
check "the synthetic event's hist counts by pid" \
	grep -q "^{ pid: *${pids% } } hitcount: *[1-9][0-9]* *lat: *[0-9]*$" "$T/sh"
echo "!$ts0" >>events/mygrp/a2/trigger 2>"$T/e7"
check "a trigger whose \$ts0 another reads cannot be removed (EBUSY)" \
	grep -q 'Device or resource busy' "$T/e7"
echo 'traceon' >>events/mygrp/a2/trigger
echo >events/mygrp/a2/trigger
check "> trigger keeps it too (hist_unreg_all), and the traceon: > removes only hist ones" \
	test "$(grep -c '' events/mygrp/a2/trigger) $(grep -c '^hist:keys=common_pid:' events/mygrp/a2/trigger)" = "2 1"
echo '!traceon:unlimited' >>events/mygrp/a2/trigger
echo 0 >events/synthetic/call_lat/enable
echo "!$lat" >>events/mygrp/beta_ret/trigger
echo "!$ts0" >>events/mygrp/a2/trigger
echo >events/synthetic/call_lat/trigger
check "the triggers go" test "$(cat events/mygrp/beta_ret/trigger events/mygrp/a2/trigger | grep -c '^hist')" = 0
check "and the probe's enable reads 0 again" test "$(cat events/mygrp/a2/enable)" = 0
echo 1 >events/start/gamma/enable
echo 0 >events/mygrp/beta_ret/enable
: >dynamic_events
check "> dynamic_events removes them all once none is enabled" test -z "$(cat dynamic_events)"

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
rc=$?
check "the program and the recording end well" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/# recorder: /' "$T/rec.out" | tail -5
RP=
"$U" report -i "$T/dyn.dat" >"$T/rep" 2>&1
grep ' alpha: ' "$T/rep" >"$T/ralpha"
check "the file decodes the live probe's records ($(wc -l <"$T/ralpha"))" \
	test -s "$T/ralpha" -a -z "$(grep -v 'alpha: (func_alpha+0x0/0x[0-9a-f]*) x=7 y=100[012]$' "$T/ralpha")"
check "and the return probe's" grep -q 'beta_ret: (worker+0x[0-9a-f]* <- func_beta) ret=201[468]$' "$T/rep"
check "and the command line's probe's" grep -q 'gamma: (func_beta+0x0/0x[0-9a-f]*) v=10' "$T/rep"

# a shell that runs short programs one after another: the probe is found
# in the objects the processes loaded (not in the shell), and every
# process that starts after it is added gets it whole at registration
cat >"$T/once.c" <<'PROG'
#include <unistd.h>
__attribute__((noinline)) int func_alpha(int x, long y) { __asm__ volatile(""); return x + (int)y; }
int main(void)
{
	volatile int v = 0;
	for (int i = 0; i < 200; i++)
		v = func_alpha(7, 1000 + i % 3);
	usleep(20000);
	return 0;
}
PROG
cc -O2 $("$U" cflags) -o "$T/once" "$T/once.c" || { notok "build the short program"; exit 1; }
rm -f "$T/stop"
"$U" record -p nop --tracefs "$T/mnt" -o "$T/once.dat" -- \
	bash -c "while [ ! -e '$T/stop' ]; do '$T/once'; done" >"$T/rec2.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -f "$T/mnt/dynamic_events" ] && break; sleep 0.05; done
sleep 0.3
echo 'p:mygrp/alpha func_alpha x=%di:s32 y=%si:s64' >>"$T/mnt/dynamic_events"
check "a probe on a symbol of the programs a shell runs is added" test $? -eq 0
echo 1 >"$T/mnt/events/mygrp/alpha/enable"
sleep 1
touch "$T/stop"
wait "$RP"
RP=
"$U" report -i "$T/once.dat" | grep ' alpha: ' >"$T/once.rep"
# each process that started after the enable: its 200 calls, all right
# (the first and last may be cut by the add and the enable)
counts=$(awk '{ print $1 }' "$T/once.rep" | uniq -c | awk '{ print $1 }' | sed '1d;$d' | sort -u)
check "the processes started after it record every call ($(echo $counts))" test "$counts" = 200
check "with the right arguments" \
	test -s "$T/once.rep" -a -z "$(grep -v 'x=7 y=100[012]$' "$T/once.rep")"
exit 0

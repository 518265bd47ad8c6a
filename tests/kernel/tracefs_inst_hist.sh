#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_inst_hist.sh BUILD_DIR - an instance's own hist and
# snapshot triggers (lib/session/session_inst_trig.c), as the kernel's
# belong to their trace_array: a hist trigger written into instances/NAME/
# events/S/E/trigger is listed in that instance's trigger file and fills a
# table of its own, which its hist file prints and the top level's does
# not (and the other way round), counted exactly (tests/kernel/ltn.c hits
# lt_tick a random number of times on request); :pause, :cont and :clear
# act on the instance's table only, `!hist:...` removes it; the
# instance's disable_hist and enable_hist pause and continue its own
# tables, the top level's its own; a hist trigger's $var is one of its own
# level's; a trace_marker write runs the print triggers of the level
# written only.  A snapshot trigger of the instance
# takes the instance's snapshot, not the top level's.  An eighth
# instance's trigger is ENOSPC (the control page's readers).  rmdir takes
# the triggers and their tables with it.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/kernel" \
	-o "$T/ltn" "$ROOT/tests/kernel/ltn.c" ||
	{ notok "build the tracepoint program"; exit 1; }
mkdir "$T/ctl"
"$U" record -p nop --tracefs "$T/mnt" -o "$T/ltn.dat" -- "$T/ltn" "$T/ctl" >"$T/ltn.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1
E=events/livetp
A=instances/a
K=0

# hit tick|work N: ltn hits lt_tick (lt_work) N times; waited for
hit() {
	K=$((K + 1))
	echo "$1 $2" >"$T/ctl/go.tmp" && mv "$T/ctl/go.tmp" "$T/ctl/go.$K"
	until_ok 600 test -e "$T/ctl/done.$K" || notok "ltn did not do step $K"
}
# hits FILE: the Totals' Hits of a hist file ("" if none)
hits() { awk '$1 == "Hits:" { print $2 }' "$1"; }
# trig FILE: its triggers (no comment line)
trig() { grep -v '^#' "$1"; }
n() { echo $((RANDOM % 40 + 5)); }
T1='hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048'

mkdir $A
echo 'hist:keys=common_pid' >$A/$E/lt_tick/trigger
check "an instance takes a hist trigger" test "$(trig $A/$E/lt_tick/trigger)" = "$T1 [active]"
check "... not listed in the top level's trigger file" test -z "$(trig $E/lt_tick/trigger)"
echo 'hist:keys=kind' >$E/lt_work/trigger
check "the top level's hist trigger is not listed in the instance's" \
	test -z "$(trig $A/$E/lt_work/trigger)"

n1=$(n)
hit tick "$n1"
check "the instance's hist counts lt_tick exactly ($n1 hits)" test "$(hits $A/$E/lt_tick/hist)" = "$n1"
check "... in one entry, its hitcount $n1" grep -q "^{ common_pid: *[0-9]* } hitcount: *$n1\$" \
	$A/$E/lt_tick/hist
check "... with the kernel's heading" \
	test "$(sed -n 3p $A/$E/lt_tick/hist)" = "# trigger info: $T1 [active]"
check "the top level's lt_tick hist is empty" test -z "$(cat $E/lt_tick/hist)"
n2=$(n)
hit work "$n2"
check "the top level's hist counts lt_work exactly ($n2 hits)" test "$(hits $E/lt_work/hist)" = "$n2"
check "the instance's lt_work hist is empty" test -z "$(cat $A/$E/lt_work/hist)"
check "the instance's lt_tick hist did not move" test "$(hits $A/$E/lt_tick/hist)" = "$n1"

# :pause, :cont, :clear: the instance's table
echo 'hist:keys=common_pid:pause' >>$A/$E/lt_tick/trigger
check ":pause pauses the instance's table" test "$(trig $A/$E/lt_tick/trigger)" = "$T1 [paused]"
hit tick "$(n)"
check "... which counts nothing then" test "$(hits $A/$E/lt_tick/hist)" = "$n1"
echo 'hist:keys=common_pid:cont' >>$A/$E/lt_tick/trigger
n3=$(n)
hit tick "$n3"
check ":cont: it counts again ($n1 + $n3)" test "$(hits $A/$E/lt_tick/hist)" = $((n1 + n3))
echo 'hist:keys=common_pid:clear' >>$A/$E/lt_tick/trigger
check ":clear empties it" test "$(hits $A/$E/lt_tick/hist)" = 0

# the same trigger at both levels: two tables
echo 'hist:keys=common_pid' >$E/lt_tick/trigger
n4=$(n)
hit tick "$n4"
check "the top level's own table of the same trigger: $n4" test "$(hits $E/lt_tick/hist)" = "$n4"
check "... and the instance's: $n4" test "$(hits $A/$E/lt_tick/hist)" = "$n4"
echo '!hist:keys=common_pid' >>$A/$E/lt_tick/trigger
check "!hist:... removes the instance's" test -z "$(trig $A/$E/lt_tick/trigger)"
check "... and its table" test -z "$(cat $A/$E/lt_tick/hist)"
check "the top level's stays" test "$(trig $E/lt_tick/trigger)" = "$T1 [active]"
n5=$(n)
hit tick "$n5"
check "... and counts on ($n4 + $n5)" test "$(hits $E/lt_tick/hist)" = $((n4 + n5))
echo '!hist:keys=common_pid' >>$E/lt_tick/trigger

# variables: a level's own, as the kernel's are its trace_array's
echo 'hist:keys=common_pid:t0=n' >$A/$E/lt_tick/trigger
check "an instance's hist trigger reads its own variable" \
	sh -c 'echo "hist:keys=common_pid:d=n-\$t0" >'$A/$E/lt_work/trigger
check "the top level's cannot read it" \
	sh -c '! echo "hist:keys=common_pid:d=n-\$t0" >>'$E/lt_work/trigger' 2>/dev/null'
check "... Couldn't find variable, in the top level's error_log" \
	grep -q "hist:livetp:lt_work: error: Couldn't find variable" error_log
echo 'hist:keys=common_pid:u0=n' >$E/lt_tick/trigger
check "nor the instance the top level's" \
	sh -c '! echo "hist:keys=common_pid:e=n-\$u0" >>'$A/$E/lt_work/trigger' 2>/dev/null'
hit tick 3
hit work 3 # (the top level's lt_work table counts them too)
check "the instance's table with the reference counts" test -n "$(hits $A/$E/lt_work/hist)"
echo '!hist:keys=common_pid:d=n-$t0' >>$A/$E/lt_work/trigger
echo '!hist:keys=common_pid:t0=n' >>$A/$E/lt_tick/trigger
echo '!hist:keys=common_pid:u0=n' >>$E/lt_tick/trigger
check "... and they go" test -z "$(trig $A/$E/lt_work/trigger)$(trig $A/$E/lt_tick/trigger)"

# trace_marker: a write runs the print triggers of its own level only
P=events/ftrace/print
echo 'hist:keys=common_pid' >$A/$P/trigger
echo 'hist:keys=common_pid' >$P/trigger
m1=$(n)
m2=$(n)
for i in $(seq "$m1"); do echo "inst $i" >$A/trace_marker; done
for i in $(seq "$m2"); do echo "top $i" >trace_marker; done
check "the instance's trace_marker writes are its print hist's: $m1" \
	test "$(hits $A/$P/hist)" = "$m1"
check "the top level's are the top level's: $m2" test "$(hits $P/hist)" = "$m2"
echo '!hist:keys=common_pid' >>$A/$P/trigger
echo '!hist:keys=common_pid' >>$P/trigger

# disable_hist, enable_hist of the instance: its own tables of the target
T2='hist:keys=kind:vals=hitcount:sort=hitcount:size=2048'
echo 'hist:keys=kind' >$A/$E/lt_work/trigger
echo 'disable_hist:livetp:lt_work' >$A/$E/lt_tick/trigger
hit tick 1
check "the instance's disable_hist pauses its lt_work table" \
	test "$(trig $A/$E/lt_work/trigger)" = "$T2 [paused]"
check "... not the top level's" test "$(trig $E/lt_work/trigger)" = "$T2 [active]"
n7=$(n)
hit work "$n7"
check "the paused table counts nothing" test "$(hits $A/$E/lt_work/hist)" = 0
check "the top level's counts on ($n2 + 3 + $n7)" test "$(hits $E/lt_work/hist)" = $((n2 + 3 + n7))
echo '!disable_hist:livetp:lt_work' >>$A/$E/lt_tick/trigger
echo 'enable_hist:livetp:lt_work' >>$A/$E/lt_tick/trigger
hit tick 1
check "the instance's enable_hist continues it" \
	test "$(trig $A/$E/lt_work/trigger)" = "$T2 [active]"
n8=$(n)
hit work "$n8"
check "... which counts again ($n8)" test "$(hits $A/$E/lt_work/hist)" = "$n8"
echo 'disable_hist:livetp:lt_work' >$E/lt_tick/trigger
hit tick 1
check "the top level's disable_hist pauses the top level's table" \
	test "$(trig $E/lt_work/trigger)" = "$T2 [paused]"
check "... not the instance's" test "$(trig $A/$E/lt_work/trigger)" = "$T2 [active]"
echo >$E/lt_tick/trigger
echo >$A/$E/lt_tick/trigger
echo '!hist:keys=kind' >>$A/$E/lt_work/trigger
echo '!hist:keys=kind' >>$E/lt_work/trigger

# snapshot: the instance's, of the records before the event that fired
# it (the kernel takes it before the event's own record)
echo 1 >$A/$E/lt_tick/enable
echo 1 >$E/lt_work/enable
n6=$(n)
hit tick "$n6"
hit work 3
echo 'snapshot:1' >$A/$E/lt_tick/trigger
check "a snapshot trigger allocates the instance's snapshot" grep -q 'Snapshot is allocated' $A/snapshot
check "... not the top level's" grep -q 'Snapshot is freed' snapshot
hit tick "$(n)"
check "it fired once: snapshot:count=0" test "$(trig $A/$E/lt_tick/trigger)" = snapshot:count=0
check "the instance's snapshot holds its $n6 lt_tick records before it" \
	test "$(grep -c ' lt_tick: ' $A/snapshot)" = "$n6"
check "the top level's snapshot is not that one (no lt_work of its own)" \
	test -z "$(trig snapshot)"
echo 0 >$E/lt_work/enable

# the control page has 7 instances' readers: an eighth's trigger, a hist
# one too, is ENOSPC
for i in 1 2 3 4 5 6 7; do mkdir instances/b$i; done
err=$({ echo 'hist:keys=n' >instances/b7/$E/lt_tick/trigger; } 2>&1)
check "an eighth instance's hist trigger is ENOSPC" grep -q 'No space left on device' <<<"$err"
check "... a seventh's is taken" \
	sh -c "echo hist:keys=n >instances/b6/$E/lt_tick/trigger"
for i in 1 2 3 4 5 6 7; do rmdir instances/b$i; done

# rmdir: the triggers and tables go
echo 'hist:keys=n' >>$A/$E/lt_tick/trigger
rmdir $A
mkdir $A
check "a new instance has no trigger of the old one's" test -z "$(trig $A/$E/lt_tick/trigger)"
hit tick "$(n)"
check "... nor its table" test -z "$(cat $A/$E/lt_tick/hist)"
check "the top level has no table of it either" test -z "$(cat $E/lt_tick/hist)"
rmdir $A

cd "$T" || exit 1
touch "$T/ctl/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
exit 0

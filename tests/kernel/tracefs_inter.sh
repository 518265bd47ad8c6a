#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_inter.sh BUILD_DIR - inter-event hist triggers of
# `utrace record --tracefs` in the forms of the kernel's ftracetest
# (trigger/inter-event/), over tests/ftracetest/kprog.c, whose events
# have the kernel's names and fields:
#   string variables   `filenamevar=filename` keeps a string field of one
#                      event (sched_process_exec's __data_loc filename) in
#                      its entry; onmatch() of another event (sched_process
#                      _exit) hands `$filenamevar` to a synthetic event's
#                      `char filename[]`, whose hist shows the string;
#                      in arithmetic, or for a number field, it is the
#                      kernel's "String type can not be an operand"
#   field variables    an onmatch() param naming a field of another event
#                      (sched.sched_waking.prio) adds the kernel's
#                      "synthetic_prio=prio" trigger to that event, keyed
#                      and filtered as its hist trigger, whose value the
#                      synthetic event gets; removing the trigger that
#                      needed it removes it
#   stack variables    st=common_stacktrace keeps sched_switch's stack,
#                      s=$st of another trigger copies it, and
#                      onmax().trace() hands it to an unsigned long[]
#                      field, printed in trace as the kernel's
#                      "stack=STACK:" and "=> __schedule+0x..." lines
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/ftracetest/events" -o "$T/kprog" \
	"$ROOT/tests/ftracetest/kprog.c" "$ROOT/tests/ftracetest/events/"*.c ||
	{ notok "build kprog"; exit 1; }
"$U" record -p nop --tracefs "$T/mnt" -o "$T/k.dat" -- "$T/kprog" "$T/stop" >"$T/k.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1
EXEC=events/sched/sched_process_exec
EXIT=events/sched/sched_process_exit

# the filenames the synthetic event's hist holds
synth_names() { sed -n 's/^{ filename: *\([^ ,]*\) *,.*/\1/p' events/synthetic/exec_lat/hist | sort -u; }

# ---- string variables -------------------------------------------------------
echo 'exec_lat u64 lat; char filename[]' >synthetic_events
check "a string field as a variable: filenamevar=filename" \
	sh -c "echo 'hist:key=pid:filenamevar=filename:ts0=common_timestamp.usecs' >$EXEC/trigger"
check "onmatch() hands \$filenamevar to a char[] field" \
	sh -c "echo 'hist:key=pid:lat=common_timestamp.usecs-\$ts0:onmatch(sched.sched_process_exec).exec_lat(\$lat,\$filenamevar)' >$EXIT/trigger"
echo 'hist:keys=filename,lat:sort=filename,lat' >events/synthetic/exec_lat/trigger
has_name() { test "$(synth_names)" = /bin/true; }
check "the synthetic event's hist has the exec'd file, /bin/true ($(synth_names | head -3 | tr '\n' ' '))" \
	until_ok 100 has_name

echo >error_log
bad='hist:key=pid:x=$filenamevar+1'
echo "$bad" >>"$EXIT/trigger" 2>"$T/e1"
check "\$filenamevar in arithmetic fails (EINVAL)" grep -q 'Invalid argument' "$T/e1"
check "... with the kernel's error_log text" grep -q 'error: String type can not be an operand' error_log
echo 'num_lat u64 lat; u64 n' >synthetic_events
echo 'hist:key=pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_process_exec).num_lat($lat,$filenamevar)' \
	>>"$EXIT/trigger" 2>"$T/e2"
check "\$filenamevar for a number field fails (EINVAL)" grep -q 'Invalid argument' "$T/e2"

# ---- field variables ----------------------------------------------------------
WAKING=events/sched/sched_waking
SWITCH=events/sched/sched_switch
echo 'wakeup_latency u64 lat; pid_t pid; int prio; char comm[16]' >synthetic_events
echo 'hist:keys=comm:ts0=common_timestamp.usecs if comm=="kprog"' >"$WAKING/trigger"
fv='hist:keys=next_comm:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid,sched.sched_waking.prio,next_comm) if next_comm=="kprog"'
check "onmatch() takes a field of the other event, sched.sched_waking.prio" \
	sh -c "echo '$fv' >$SWITCH/trigger"
check "... which adds its variable there, keyed and filtered as its hist trigger" \
	grep -qx '# trigger info: hist:keys=comm:vals=hitcount:synthetic_prio=prio:sort=hitcount:size=2048 if comm=="kprog" \[active\]' "$WAKING/hist"
echo 'hist:keys=pid,prio,comm:vals=lat:sort=pid,prio' >events/synthetic/wakeup_latency/trigger
# the prio kprog's sched_waking gives (tests/ftracetest/kprog.c)
want_prio=$(sed -n 's/.*struct task_struct task = {\.prio = \([0-9]*\),.*/\1/p' "$ROOT/tests/ftracetest/kprog.c")
has_prio() { grep -q "prio: *$want_prio, comm: kprog" events/synthetic/wakeup_latency/hist; }
check "the synthetic event gets sched_waking's prio ($want_prio)" until_ok 100 has_prio
echo "!$fv" >>"$SWITCH/trigger"
check "removing the trigger removes the variable's" \
	test -z "$(grep synthetic_prio "$WAKING/hist")"
check "... and leaves the other" grep -q 'ts0=common_timestamp.usecs' "$WAKING/trigger"
echo 'hist:keys=next_comm:onmatch(sched.sched_waking).wakeup_latency(1,next_pid,sched.sched_waking.nosuch,next_comm)' \
	>"$SWITCH/trigger" 2>"$T/e3"
check "a field neither event has fails (EINVAL)" grep -q 'Invalid argument' "$T/e3"

# ---- stack variables ----------------------------------------------------------
echo >"$SWITCH/trigger"
echo 's:wake_lat pid_t pid; u64 delta; unsigned long[] stack;' >>dynamic_events
check "a stack as a variable: st=common_stacktrace" \
	sh -c "echo 'hist:keys=next_pid:ts=common_timestamp.usecs,st=common_stacktrace if prev_state == 1' >>$SWITCH/trigger"
check "another trigger's copy of it (s=\$st) handed to an unsigned long[] field" \
	sh -c "echo 'hist:keys=prev_pid:delta=common_timestamp.usecs-\$ts,s=\$st:onmax(\$delta).trace(wake_lat,prev_pid,\$delta,\$s)' >>$SWITCH/trigger"
echo 1 >events/synthetic/wake_lat/enable
# kprog fires sched_switch in __schedule(), called by kernel_events()
check "trace prints the stack as the kernel: stack=STACK:, then => __schedule+0x..." \
	trace_shows "$T/tr" 'wake_lat: pid=0 delta=[0-9]* stack=STACK:$'
check "... a frame a line, the innermost first" grep -q -A1 'stack=STACK:$' "$T/tr"
grep -A1 'stack=STACK:$' "$T/tr" | sed -n 2p >"$T/frame"
check "... => __schedule+0xOFF ($(cat "$T/frame"))" grep -qx '=> __schedule+0x[0-9a-f]*' "$T/frame"
echo 0 >events/synthetic/wake_lat/enable
echo 'hist:keys=prev_pid:d2=common_timestamp.usecs-$ts:onmax($d2).trace(wake_lat,prev_pid,$d2,$ts)' >>"$SWITCH/trigger" 2>"$T/e4"
check "a number for the unsigned long[] field fails (EINVAL)" grep -q 'Invalid argument' "$T/e4"

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
exit 0

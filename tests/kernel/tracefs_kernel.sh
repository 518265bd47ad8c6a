#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_kernel.sh BUILD_DIR - kernel events in the live
# tracefs (lib/record/recorder_livekev.c, issue 23 group K): `utrace
# record -c -e sched:sched_process_fork -e sched:sched_switch --tracefs
# DIR -- sh SCRIPT`, the shell a traced program, kprog (whose static
# tracepoints have the kernel's names, sched:sched_process_fork among
# them) beside it.  The script, run inside the recording:
#   events/sched/sched_process_fork is the kernel's: its id and format's
#   ID are the kernel's own id, not kprog's tracepoint's
#   a hist trigger keyed on parent_comm, then on parent_pid,child_pid,
#   counts the kernel's fork records of the traced processes: forks made
#   by a copy of sh named kforker (a child of the script: -c) show as
#   `parent_comm: kforker` with every fork counted, and the compound
#   keys name kforker's pid and each of its children's
#   common_pid.execname names a task that still runs by its comm (the
#   kernel instance's task list, as the kernel's saved cmdlines)
#   its enable switches the kernel event's records (1 as -e named it, 0
#   after `echo 0`)
#   set_event_pid applies to them as the kernel's pid filter (a
#   sched_switch is kept if either task is listed), and so does a filter
#   a read right after a child ended (by the shell, no fork) shows the
#   child's last switch, and a hist its synthetic event's record: a read
#   includes what was committed before it (recorder_kmerge.c)
#   a hist trigger of one kernel event reads a variable of another's
#   ($ts0 of sched_waking in sched_switch's onmax()), and an onmatch()
#   fires a synthetic event defined while running (with a char[16]
#   field), whose hist trigger counts what the kernel events fired, and
#   may read the kernel events' variables ($ts0 of sched_waking, which
#   no other trigger reads: a reference takes a variable's value once)
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"
need_root "kernel events need root"
find_tracefs
[ -n "$TR" ] && [ -r "$TR/events/sched/sched_process_fork/id" ] ||
	unsupported "no tracefs with sched:sched_process_fork"

live_tmp
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/ftracetest/events" -o "$T/kprog" \
	"$ROOT/tests/ftracetest/kprog.c" "$ROOT/tests/ftracetest/events/"*.c ||
	{ notok "build kprog"; exit 1; }
cp /bin/sh "$T/kforker"
cp "$(command -v sleep)" "$T/ksleeper"
N=7
# kforker: N subshells, then its pid and its children's, as it saw them
cat >"$T/forker.sh" <<'EOF'
i=0
while [ $i -lt "$1" ]; do ( : ) & echo "$!" >>"$2"; wait; i=$((i + 1)); done
echo "$$" >"$3"
EOF
cat >"$T/inside.sh" <<'EOF'
T=$1 N=$2
# a file read by the shell itself, no fork: right after a child ends,
# well within a millisecond of its last switch
slurp() { while IFS= read -r l; do printf '%s\n' "$l"; done <"$1"; }
"$T/kprog" "$T/stop" &
kp=$!
cd "$T/mnt" || exit 1
i=0
while ! grep -qs '^kmem:' available_events && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
F=events/sched/sched_process_fork
# why a write was refused: the shell's message and error_log's last entry
why() { tr '\n' ' ' <"$T/why"; tail -n 3 error_log | tr '\n' ' '; }
cat $F/id >"$T/id"
sed -n 's/^ID: //p' $F/format >"$T/fmt_id"
echo 'hist:keys=parent_comm' >$F/trigger || echo "trigger 1 refused" >>"$T/errors"
"$T/kforker" "$T/forker.sh" "$N" "$T/children" "$T/forker_pid"
cat $F/hist >"$T/hist1"
echo '!hist:keys=parent_comm' >$F/trigger || echo "trigger 1 not removed" >>"$T/errors"
echo 'hist:keys=parent_pid,child_pid' >$F/trigger || echo "trigger 2 refused" >>"$T/errors"
: >"$T/children"
"$T/kforker" "$T/forker.sh" "$N" "$T/children" "$T/forker_pid"
cat $F/hist >"$T/hist2"
echo 'hist:keys=common_pid.execname' >$F/trigger || echo "trigger 3 refused" >>"$T/errors"
( : ); ( : )
echo $$ >"$T/shell_pid"
cat $F/hist >"$T/hist3"
cat events/sched/sched_switch/enable >"$T/enable1"
echo 0 >events/sched/sched_switch/enable || echo "enable refused" >>"$T/errors"
cat events/sched/sched_switch/enable >"$T/enable0"
echo 1 >events/sched/sched_switch/enable
echo $$ >set_event_pid
echo >trace
sleep 0.05
cat trace >"$T/trace_pid"
echo >set_event_pid
echo 'prev_comm == "ksleeper"' >events/sched/sched_switch/filter ||
	echo "filter refused" >>"$T/errors"
echo >trace
"$T/ksleeper" 0.05 & sp1=$!; wait $sp1
slurp trace >"$T/trace_filter"
echo $sp1 >"$T/sleeper1_pid"
echo >events/sched/sched_switch/filter
echo 'hist:keys=pid:ts0=common_timestamp.usecs if comm=="ksleeper"' \
	>events/sched/sched_waking/trigger || echo "waking trigger refused" >>"$T/errors"
echo 'hist:keys=next_pid:lat=common_timestamp.usecs-$ts0:onmax($lat).save(prev_pid) if next_comm=="ksleeper"' \
	>events/sched/sched_switch/trigger || echo "switch trigger (\$ts0) refused" >>"$T/errors"
"$T/ksleeper" 0.05
cat events/sched/sched_switch/hist >"$T/hist_max"
echo 'wakeup_latency u64 lat; pid_t pid; char comm[16]' >synthetic_events ||
	echo "synthetic event refused" >>"$T/errors"
echo 'hist:keys=pid:ts1=common_timestamp.usecs if comm=="ksleeper"' \
	>events/sched/sched_wakeup/trigger || echo "wakeup trigger refused" >>"$T/errors"
echo 'hist:keys=next_pid:wl=common_timestamp.usecs-$ts1:onmatch(sched.sched_wakeup).wakeup_latency($wl,next_pid,next_comm) if next_comm=="ksleeper"' \
	>events/sched/sched_switch/trigger || echo "onmatch trigger refused" >>"$T/errors"
echo 'hist:keys=comm,pid,lat:sort=lat' 2>"$T/why" >events/synthetic/wakeup_latency/trigger ||
	echo "synthetic trigger refused: $(why)" >>"$T/errors"
"$T/ksleeper" 0.05 & sp2=$!; echo $sp2 >"$T/sleeper_pid"; wait $sp2
slurp events/synthetic/wakeup_latency/hist >"$T/hist_synth"
echo 'hist:keys=pid,lat:sort=pid:since=common_timestamp.usecs-$ts0' 2>"$T/why" \
	>events/synthetic/wakeup_latency/trigger || echo "synthetic trigger (\$ts0) refused: $(why)" >>"$T/errors"
"$T/ksleeper" 0.05 & sp3=$!; echo $sp3 >"$T/sleeper3_pid"; wait $sp3
cat events/synthetic/wakeup_latency/hist >"$T/hist_synth2"
touch "$T/stop"
wait $kp
EOF
: >"$T/errors"
timeout 120 "$U" record -p nop -c -e sched:sched_process_fork -e sched:sched_switch -e sched:sched_waking \
	-e sched:sched_wakeup \
	--tracefs "$T/mnt" -o "$T/k.dat" -- sh "$T/inside.sh" "$T" "$N" >"$T/rec.out" 2>&1
check "the recording ended normally" test $? -eq 0
check "every write was taken ($(tr '\n' ';' <"$T/errors"))" test ! -s "$T/errors"
kid=$(cat "$TR/events/sched/sched_process_fork/id")
check "sched_process_fork's id is the kernel's ($kid)" test "$(cat "$T/id")" = "$kid"
check "its format's ID is the kernel's" test "$(cat "$T/fmt_id")" = "$kid"
hits=$(sed -n 's/^{ parent_comm: kforker *} hitcount: *\([0-9]*\)$/\1/p' "$T/hist1")
# (and the runtime's channel thread of each kforker process: the kernel's
# sched_process_fork is a thread's too)
check "parent_comm: kforker counts its $N forks at least (${hits:-none})" test "${hits:-0}" -ge "$N"
fp=$(cat "$T/forker_pid")
miss=0
while read -r c; do
	grep -q "^{ parent_pid: *$fp, child_pid: *$c }" "$T/hist2" || miss=$((miss + 1))
done <"$T/children"
check "the compound keys name kforker ($fp) and each of its $N children ($miss missing)" \
	test "$miss" -eq 0 -a "$(wc -l <"$T/children")" -eq "$N"
sp=$(cat "$T/shell_pid")
check "common_pid.execname names the running shell ($sp) as the kernel does: sh" \
	grep -q "^{ common_pid: sh  *\[ *$sp\] }" "$T/hist3"
check "sched_switch's enable reads 1, as -e named it" test "$(cat "$T/enable1")" = 1
check "echo 0 switches it off" test "$(cat "$T/enable0")" = 0
n=$(grep -c 'sched_switch:' "$T/trace_pid")
other=$(grep 'sched_switch:' "$T/trace_pid" | grep -vc "pid=$sp ")
check "set_event_pid \$\$: the shell's switches are in trace ($n), its child's alone not ($other)" \
	test "$n" -gt 0 -a "$other" -eq 0
n=$(grep -c 'sched_switch:' "$T/trace_filter")
other=$(grep 'sched_switch:' "$T/trace_filter" | grep -vc "prev_comm=ksleeper ")
check "filter prev_comm == \"ksleeper\": its switches alone ($n, $other others)" \
	test "$n" -gt 0 -a "$other" -eq 0
kp=$(cat "$T/sleeper1_pid")
check "trace read at once after ksleeper ($kp) ended shows its last switch (prev_state=Z)" \
	grep -q "prev_comm=ksleeper prev_pid=$kp .*prev_state=Z" "$T/trace_filter"
check "a kernel event's trigger reads another's \$ts0: onmax() of sched_switch" \
	grep -q "^$(printf '\t')max: *[0-9]* *prev_pid: *[0-9]" "$T/hist_max"
kp=$(cat "$T/sleeper_pid")
check "a synthetic event defined while running, fired by sched_switch's onmatch(): its hist shows ksleeper ($kp)" \
	grep -q "^{ comm: ksleeper *, pid: *$kp, lat: *[0-9]* }" "$T/hist_synth"
kp=$(cat "$T/sleeper3_pid")
check "the synthetic event's trigger reads sched_waking's \$ts0 ($kp counted)" \
	grep -q "^{ pid: *$kp, lat: *[0-9]* }" "$T/hist_synth2"

#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_marker_pid.sh BUILD_DIR - a trace_marker write is
# its writer's, as the kernel's (current->pid; here the thread FUSE says
# made the write), in a recording with kernel events (`utrace record -c
# -e sched:sched_waking --tracefs DIR -- sh SCRIPT`, lib/record/
# recorder_kernel.c rec_kmerge_marker), issue 23:
#   kmarker (a copy of sh the script starts, so traced) writes a marker:
#   trace shows it as `kmarker-PID`, and events/ftrace/print's hist keyed
#   on common_pid counts it under that pid
#   a process the recording does not trace (started from outside it)
#   writes one: trace shows it under its own pid, named from /proc
#   (while set_event_pid lists another: the lists are for events)
#   the print trigger's onmatch(sched.sched_waking) reads $ts0 of the
#   kernel's sched_waking of the writer (kmarker's wakeup after its
#   sleep), and the synthetic event it fires is the writer's too
#   an instance's marker runs the instance's print triggers only: its
#   hist counts kmarker2, the top level's does not
#   a writer the kernel records named while it was still the forked shell
#   (it woke a task) shows by the comm it has when it writes, kmarker3
#   a write longer than a kernel page holds is short, and a writer that
#   writes the rest gets it as the next records
# Before, the record was the command's first process's (its live
# channel thread's), whatever process wrote it.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"
need_root "kernel events need root"
find_tracefs
[ -n "$TR" ] && [ -r "$TR/events/sched/sched_waking/id" ] ||
	unsupported "no tracefs with sched:sched_waking"

not_in() { ! grep -q "$1" "$2"; }

live_tmp
cp /bin/sh "$T/kmarker"
cp /bin/sh "$T/kmarker2"
cp /bin/sh "$T/kmarker3"
cat >"$T/inside.sh" <<'EOF'
T=$1
cd "$T/mnt" || exit 1
i=0
while [ ! -e events/sched/sched_waking/trigger ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
echo 'latency u64 lat' >synthetic_events || echo "synthetic event refused" >>"$T/errors"
echo 'hist:keys=pid:ts0=common_timestamp.usecs' >events/sched/sched_waking/trigger ||
	echo "waking trigger refused" >>"$T/errors"
echo 'hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).latency($lat)' \
	>events/ftrace/print/trigger || echo "print trigger refused" >>"$T/errors"
echo 'hist:keys=common_pid' >events/synthetic/latency/trigger ||
	echo "latency trigger refused" >>"$T/errors"
mkdir instances/kinst || echo "mkdir instances/kinst refused" >>"$T/errors"
echo 'hist:keys=common_pid' >instances/kinst/events/ftrace/print/trigger ||
	echo "instance print trigger refused" >>"$T/errors"
"$T/kmarker" -c 'sleep 0.1; echo "from kmarker $$" >trace_marker; echo $$ >"$1"' sh "$T/writer_pid"
"$T/kmarker2" -c 'echo "from kmarker2 $$" >instances/kinst/trace_marker; echo $$ >"$1"' sh \
	"$T/writer2_pid"
# a task named while it is still the forked shell (it wakes cat, a read
# of trace names it), which then execs kmarker3 and writes a marker
mkfifo "$T/fifo"
cat "$T/fifo" >/dev/null &
sleep 0.2
(echo x >"$T/fifo"; cat trace >/dev/null
	exec "$T/kmarker3" -c 'echo "from kmarker3 $$" >trace_marker; echo $$ >"$1"' sh "$T/writer3_pid")
wait
# one write() longer than a kernel page holds: the rest written again
python3 - 12000 >"$T/long_first" <<'PY'
import os, sys
n = int(sys.argv[1])
text = b"".join(b"%c" % (65 + i % 26) for i in range(n))
fd = os.open("trace_marker", os.O_WRONLY)
first = os.write(fd, text)
done = first
while done < n:
    done += os.write(fd, text[done:])
os.close(fd)
print(first)
PY
echo $$ >set_event_pid # (it does not apply to trace_marker, as in the kernel)
touch "$T/ready"
i=0
while [ ! -e "$T/outside_done" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
cat trace >"$T/trace"
cat events/ftrace/print/hist >"$T/print_hist"
cat events/synthetic/latency/hist >"$T/latency_hist"
cat instances/kinst/events/ftrace/print/hist >"$T/inst_hist"
EOF
: >"$T/errors"
timeout 120 "$U" record -p nop -c -e sched:sched_waking --tracefs "$T/mnt" -o "$T/k.dat" \
	-- sh "$T/inside.sh" "$T" >"$T/rec.out" 2>&1 &
RP=$!
for _ in $(seq 400); do [ -e "$T/ready" ] && break; sleep 0.05; done
# not a process of the recording: this script's child
sh -c 'echo "from outside $$" >"$1/trace_marker"; echo $$ >"$2"' sh "$T/mnt" "$T/outside_pid"
touch "$T/outside_done"
wait $RP
check "the recording ended normally" test $? -eq 0
check "every write was taken ($(tr '\n' ';' <"$T/errors"))" test ! -s "$T/errors"
wp=$(cat "$T/writer_pid" 2>/dev/null)
check "trace shows kmarker's marker as its own (kmarker-$wp; trace has: $(grep -m1 "from kmarker" "$T/trace"))" \
	grep -q "^ *kmarker-$wp .* tracing_mark_write: from kmarker $wp\$" "$T/trace"
wp3=$(cat "$T/writer3_pid" 2>/dev/null)
check "a writer named before its exec shows by its comm now (kmarker3-$wp3; trace has: $(grep -m1 "from kmarker3" "$T/trace"))" \
	grep -q "^ *kmarker3-$wp3 .* tracing_mark_write: from kmarker3 $wp3\$" "$T/trace"
check "the print hist keyed on common_pid counts it under kmarker's pid ($wp)" \
	grep -q "^{ common_pid: *$wp } hitcount: *1\$" "$T/print_hist"
check "onmatch(sched.sched_waking) read the \$ts0 of kmarker's wakeup: latency fired for $wp" \
	grep -q "^{ common_pid: *$wp } hitcount: *1\$" "$T/latency_hist"
want=$(python3 -c "print(''.join(chr(65 + i % 26) for i in range(12000)))")
got=$(sed -n 's/^.* tracing_mark_write: \([A-Z]\{100\}\)/\1/p' "$T/trace" | tr -d '\n')
check "a write longer than a kernel page holds is short ($(cat "$T/long_first") of 12000 bytes)" \
	test "$(cat "$T/long_first")" -lt 12000
check "and its records put together are the text (${#got} bytes)" test "$got" = "$want"
op=$(cat "$T/outside_pid" 2>/dev/null)
check "a marker of a process not traced is its own (sh-$op), set_event_pid or not" \
	grep -q "^ *sh-$op .* tracing_mark_write: from outside $op\$" "$T/trace"
wp2=$(cat "$T/writer2_pid" 2>/dev/null)
check "the instance's print hist counts its marker's writer ($wp2)" \
	grep -q "^{ common_pid: *$wp2 } hitcount: *1\$" "$T/inst_hist"
check "the top level's print hist does not count the instance's marker" \
	not_in "common_pid: *$wp2 }" "$T/print_hist"
check "the instance's print hist does not count the top level's marker" \
	not_in "common_pid: *$wp }" "$T/inst_hist"

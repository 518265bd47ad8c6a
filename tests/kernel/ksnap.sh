#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/ksnap.sh BUILD_DIR - the snapshot trigger on a kernel
# event: this kernel has no snapshots (CONFIG_TRACER_SNAPSHOT), so the
# recorder takes one when its merge runs the event: the threads' rings
# cut at the event and the kernel records saved up to it.  A program
# sleeps four times (tests/kernel/ksleep.c), recorded with --overwrite:
#
#   - -R 'snapshot:1 if prev_comm == "ksleep"' on sched:sched_switch: one
#     snapshot, report --snapshot prints it in the trace's layout, its
#     last record is the first sched_switch of ksleep (the event), and the
#     trace goes on after it
#   - -R 'snapshot:2 ...': two snapshots, each ending at its own event
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
need_root "kernel events need root (tracefs instances)"
find_tracefs
if [ -z "$TR" ] || [ ! -d "$TR/instances" ] || [ ! -d "$TR/events/sched/sched_switch" ]; then
	unsupported "no tracefs with instances and sched_switch"
fi
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
if ! ${CC:-cc} -O0 -fno-omit-frame-pointer -o "$T/ksleep" "$ROOT/tests/kernel/ksleep.c" \
	2>"$T/cc.err"; then
	notok "build tests/kernel/ksleep.c"
	exit 1
fi

"$U" record -p nop --overwrite -o "$T/s.dat" -e sched:sched_switch \
	-R 'snapshot:1 if prev_comm == "ksleep"' -- "$T/ksleep" >"$T/s.out" 2>"$T/s.err"
st=$?
# the event may be a switch of utrace's start-up in ksleep (its
# constructor waits for the recorder): -O utrace-own shows those
"$U" report -O utrace-own -i "$T/s.dat" >"$T/s.txt" 2>&1
"$U" report -O utrace-own --snapshot -i "$T/s.dat" >"$T/s.snap" 2>&1
check "snapshot:1: the recording ran (status $st)" [ "$st" = 0 ]
check "snapshot:1: printed as the trace is (the nop tracer's header)" \
	grep -q '^#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION$' "$T/s.snap"
check "snapshot:1: one snapshot (no '##### snapshot' line between several)" \
	[ "$(grep -c '^##### snapshot' "$T/s.snap")" = 0 ]
first=$(grep -m1 'sched_switch: prev_comm=ksleep ' "$T/s.txt")
last=$(grep -v '^#' "$T/s.snap" | tail -n 1)
check "snapshot:1: it ends at the event, the first sched_switch of ksleep" \
	eval '[ -n "$first" ] && [ "$last" = "$first" ]' ||
	{ echo "#   first: $first"; echo "#   last: $last"; }
n=$(grep -v '^#' "$T/s.snap" | grep -c 'sched_switch:')
m=$(grep -c 'sched_switch:' "$T/s.txt")
# the switches in before it can all be missing: this kernel often leaves
# switches in from the idle task out of an instance (see sched_latency.sh)
check "snapshot:1: it holds the event, the trace more after ($n, $m)" \
	eval '[ "$n" -ge 1 ] && [ "$m" -gt "$n" ]' ||
	sed 's/^/#   /' "$T/s.err" "$T/s.snap"

"$U" record -p nop --overwrite -o "$T/s2.dat" -e sched:sched_switch \
	-R 'snapshot:2 if prev_comm == "ksleep"' -- "$T/ksleep" >"$T/s2.out" 2>"$T/s2.err"
# the kernel may spend the count on switches of utrace's start-up (its
# constructor waits for the recorder): those are shown with -O utrace-own
"$U" report -O utrace-own -i "$T/s2.dat" >"$T/s2.txt" 2>&1
"$U" report -O utrace-own --snapshot -i "$T/s2.dat" >"$T/s2.snap" 2>&1
check "snapshot:2: two snapshots, each named by its event" \
	[ "$(grep -c '^##### snapshot [12] of 2: sched:sched_switch at ' "$T/s2.snap")" = 2 ]
grep 'sched_switch: prev_comm=ksleep ' "$T/s2.txt" | head -n 2 >"$T/s2.want"
awk '/^##### snapshot/ { if (last != "") print last; last = ""; next }
	!/^#/ && NF { last = $0 }
	END { if (last != "") print last }' "$T/s2.snap" >"$T/s2.got"
check "snapshot:2: each ends at its event, the first two sched_switch of ksleep" \
	cmp -s "$T/s2.want" "$T/s2.got"

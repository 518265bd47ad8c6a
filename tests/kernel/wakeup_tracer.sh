#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/wakeup_tracer.sh BUILD_DIR - the live tracefs's wakeup and
# wakeup_rt tracers (lib/record/wakeup_lat.h): a shell runs inside
# `utrace record -c -e sched:... --tracefs DIR`, sets the tracer and runs
# kwake.c (1 ms sleeps: each one a wakeup and a switch in; kwake writes 0
# to tracing_max_latency itself first, so that what is measured starts
# after its exec, whatever the load), then reads trace and
# tracing_max_latency.  Only the recording's tasks are measured, so the
# kernel's threads woken by the shell (migration/N) never are:
#
#   - available_tracers lists wakeup and wakeup_rt with the kernel's
#     sched_wakeup and sched_switch, and not without (the write fails)
#   - wakeup_rt over `chrt -f 5 kwake`: tracing_max_latency > 0, the trace
#     in the latency format with its figure, the task kwake-PID (the
#     recording's, named as switched in), and the wakeup (`  + [CPU]`) and
#     switch (`==> [CPU]`) lines of kwake at prio 94
#   - `echo > trace` drops the trace kept (tracing_max_latency high, so
#     that no wakeup replaces it); then wakeup_rt over kwake at nice 0
#     (not real-time): no real-time task of the recording, nothing
#     measured (tracing_max_latency stays 0, the trace only its header)
#   - wakeup over kwake at nice -10 (prio 110, woken from tasks at 120 or
#     139): measured, the task kwake-PID
#   - tracing_max_latency written: a value above every latency stays, 0
#     starts over (kwake's again)
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
need_root "kernel events need root (tracefs instances)"
find_tracefs
if [ -z "$TR" ] || [ ! -d "$TR/instances" ] || [ ! -d "$TR/events/sched/sched_wakeup" ]; then
	unsupported "no tracefs with instances and sched events"
fi
command -v chrt >/dev/null || unsupported "no chrt"
[ -c /dev/fuse ] || unsupported "no /dev/fuse"
T=$(mktemp -d) || exit 1
trap 'mountpoint -q "$T/mnt" && umount -l "$T/mnt"; rm -rf "$T"' EXIT INT TERM
mkdir -p "$T/mnt"
if ! ${CC:-cc} -O2 -pthread -o "$T/kwake" "$ROOT/tests/kernel/kwake.c" 2>"$T/cc.err"; then
	notok "build tests/kernel/kwake.c"
	exit 1
fi

# the shell inside the recording: $1 the tracefs, $2 kwake, $3 the output folder.
# A read merges the kernel's records but those of its last 1 ms
# (recorder_kmerge.c's margin): after kwake, a sleep of 0.1 s puts all of
# kwake's records before it, so that tracing_max_latency and trace, read
# one after the other, both have them (whatever the load: a sleep lasts at
# least that).  The shell runs at nice 19 (prio 139, the worst): no
# wakeup of it or of what it starts (sleep, cat) is measured, whoever
# wakes them; only kwake's are (nice -29: nice -10, prio 110).
cat >"$T/inner.sh" <<'INNER'
d=$1 k=$2 o=$3
i=0
while [ ! -e "$d/available_tracers" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
cat "$d/available_tracers" >"$o/tracers"
echo wakeup_rt >"$d/current_tracer" && cat "$d/current_tracer" >"$o/cur"
chrt -f 5 "$k" sleep 20 "$d/tracing_max_latency"
sleep 0.1
cat "$d/tracing_max_latency" >"$o/rt.max"
cat "$d/trace" >"$o/rt.trace"
echo 100000000 >"$d/tracing_max_latency"
echo >"$d/trace"
cat "$d/trace" >"$o/clear.trace"
"$k" sleep 20 "$d/tracing_max_latency"
sleep 0.1
cat "$d/tracing_max_latency" >"$o/nort.max"
cat "$d/trace" >"$o/nort.trace"
echo wakeup >"$d/current_tracer"
nice -n -29 "$k" sleep 20 "$d/tracing_max_latency"
sleep 0.1
cat "$d/tracing_max_latency" >"$o/wk.max"
cat "$d/trace" >"$o/wk.trace"
echo 100000000 >"$d/tracing_max_latency"
nice -n -29 "$k" sleep 5
sleep 0.1
cat "$d/tracing_max_latency" >"$o/high.max"
nice -n -29 "$k" sleep 20 "$d/tracing_max_latency"
sleep 0.1
cat "$d/tracing_max_latency" >"$o/zero.max"
cat "$d/trace" >"$o/zero.trace"
echo nop >"$d/current_tracer"
INNER

"$U" record -p nop -c -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new \
	--tracefs "$T/mnt" -o "$T/k.dat" -- nice -n 19 sh "$T/inner.sh" "$T/mnt" "$T/kwake" "$T" \
	>"$T/rec.out" 2>&1 </dev/null
st=$?
check "the recording ran (status $st)" [ "$st" = 0 ]
check "available_tracers lists wakeup_rt and wakeup ($(cat "$T/tracers" 2>/dev/null))" \
	grep -q '^function_graph wakeup_rt wakeup function nop$' "$T/tracers"
check "current_tracer says wakeup_rt" grep -qx wakeup_rt "$T/cur"
rt=$(cat "$T/rt.max" 2>/dev/null)
check "wakeup_rt: tracing_max_latency > 0 after chrt -f 5 kwake (${rt:-none})" [ "${rt:-0}" -gt 0 ]
check "wakeup_rt: the trace's header" grep -q '^# tracer: wakeup_rt$' "$T/rt.trace"
check "wakeup_rt: the latency trace's first line" \
	grep -q "^# wakeup_rt latency trace v1.1.5 on $(uname -r)\$" "$T/rt.trace"
check "wakeup_rt: the header's latency is tracing_max_latency ($rt us)" \
	grep -q "^# latency: $rt us, #2/2, CPU#[0-9]* | (M:" "$T/rt.trace"
check "wakeup_rt: the task is kwake" grep -q '^#    | task: kwake-[0-9]* (uid:' "$T/rt.trace"
check "wakeup_rt: the wakeup line of kwake at prio 94" \
	grep -Eq '^.{8}-[0-9 ]{7} +[0-9]+.{5} +0us.: +[0-9]+:[ 0-9]{3}:R   \+ \[[0-9]{3}\] +[0-9]+: 94:R kwake$' \
	"$T/rt.trace"
check "wakeup_rt: the switch line to kwake at prio 94, after $rt us" \
	grep -Eq "^.{8}-[0-9 ]{7} +[0-9]+.{5} +${rt}us.: +[0-9]+:[ 0-9]{3}:[RSDTtXZPI] ==> \\[[0-9]{3}\\] +[0-9]+: 94:R kwake\$" \
	"$T/rt.trace"
check "wakeup_rt: echo > trace leaves only the tracer's line" \
	[ "$(cat "$T/clear.trace" 2>/dev/null)" = "$(printf '# tracer: wakeup_rt\n#')" ]
check "wakeup_rt: kwake at nice 0 (not real-time) is not measured ($(cat "$T/nort.max" 2>/dev/null))" \
	grep -qx 0 "$T/nort.max"
check "wakeup_rt: kwake at nice 0: the trace is only the tracer's line" \
	[ "$(cat "$T/nort.trace" 2>/dev/null)" = "$(printf '# tracer: wakeup_rt\n#')" ]
wk=$(cat "$T/wk.max" 2>/dev/null)
check "wakeup: tracing_max_latency > 0 after kwake at nice -10 (${wk:-none})" [ "${wk:-0}" -gt 0 ]
check "wakeup: the task is kwake" grep -q '^#    | task: kwake-[0-9]* (uid:' "$T/wk.trace"
check "wakeup: the header's latency is tracing_max_latency ($wk us)" \
	grep -q "^# latency: $wk us, #2/2, CPU#[0-9]* | (M:" "$T/wk.trace"
check "wakeup: the switch line to kwake at prio 110" \
	grep -Eq '==> \[[0-9]{3}\] +[0-9]+:110:R kwake$' "$T/wk.trace"
check "wakeup: a maximum above every latency stays ($(cat "$T/high.max" 2>/dev/null))" \
	grep -qx 100000000 "$T/high.max"
zero=$(cat "$T/zero.max" 2>/dev/null)
check "wakeup: 0 starts over (${zero:-none})" [ "${zero:-0}" -gt 0 -a "${zero:-0}" -lt 100000000 ]
check "wakeup: after 0, the trace has the new figure" \
	grep -q "^# latency: $zero us, #2/2, CPU#[0-9]* | (M:" "$T/zero.trace"
check "wakeup: after 0, the task is kwake" grep -q '^#    | task: kwake-[0-9]* (uid:' "$T/zero.trace"

# without the kernel's sched events: no wakeup tracers
cat >"$T/plain.sh" <<'INNER'
i=0
while [ ! -e "$1/available_tracers" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
cat "$1/available_tracers" >"$2/plain.tracers"
echo wakeup >"$1/current_tracer" 2>/dev/null && echo set >"$2/plain.set"
INNER
"$U" record -p nop --tracefs "$T/mnt" -o "$T/p.dat" -- sh "$T/plain.sh" "$T/mnt" "$T" \
	>"$T/plain.out" 2>&1 </dev/null
check "without sched events: available_tracers has no wakeup ($(cat "$T/plain.tracers" 2>/dev/null))" \
	grep -qx 'function_graph function nop' "$T/plain.tracers"
check "without sched events: current_tracer refuses wakeup" [ ! -e "$T/plain.set" ]

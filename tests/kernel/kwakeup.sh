#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/kwakeup.sh BUILD_DIR - triggers with state on kernel
# events, run by the recorder in time order across CPUs (this kernel has
# no hist triggers).  kwake.c sleeps N times (N wakeups).  This kernel
# (6.18) often leaves a switch in from the idle task out of an instance's
# buffer (perf_event sees it; tracefs does not, utrace or not), so the
# counts are checked against the records the kernel gave:
#
#   - the kernel documentation's wakeup-latency example verbatim: the
#     three histograms, at least N wakings, as many latencies as recorded
#     switches in of kwake that follow a waking of it, each plausible (under a second: a $ts0 read
#     before it was set would wrap around), and the synthetic events
#     recorded among the kernel's, each just before its sched_switch
#   - traceoff at kwake's switch out, traceon at its waking: no switch
#     out of kwake saved, every waking saved
#   - enable_event:...:3 when kwake goes to sleep (state S), disable_event
#     when it runs again: wakings of kwake saved only in the windows the
#     switches saved say were enabled, 3 of them
#   - the example without -e synthetic:wakeup_latency: it runs, nothing saved
#   - disable_hist:1 and hist:pause + enable_hist on sched_waking from
#     sched_switch: counted never, or every time
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
need_root "kernel events need root (tracefs instances)"
find_tracefs
if [ -z "$TR" ] || [ ! -d "$TR/instances" ] || [ ! -d "$TR/events/sched/sched_waking" ]; then
	unsupported "no tracefs with instances and sched events"
fi
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
if ! ${CC:-cc} -O2 -pthread -o "$T/kwake" "$ROOT/tests/kernel/kwake.c" 2>"$T/cc.err"; then
	notok "build tests/kernel/kwake.c"
	exit 1
fi
N=20

"$U" record -o "$T/w.dat" --synthetic 'wakeup_latency u64 lat; pid_t pid' \
	-e sched:sched_waking -R 'hist:keys=pid:ts0=common_timestamp.usecs if comm=="kwake"' \
	-e sched:sched_switch -R 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid)' \
	-e synthetic:wakeup_latency -R 'hist:keys=pid,lat:sort=pid,lat' \
	-- "$T/kwake" sleep $N >"$T/w.out" 2>"$T/w.err"
st=$?
"$U" report --hist -i "$T/w.dat" >"$T/w.hist" 2>&1
"$U" report -i "$T/w.dat" >"$T/w.txt" 2>&1
check "wakeup latency: the recording ran (status $st)" [ "$st" = 0 ]
check "wakeup latency: three histograms" [ "$(grep -c '^# trigger info:' "$T/w.hist")" = 3 ]
hits=$(sed -n 's/^    Hits: //p' "$T/w.hist" | tr '\n' ' ')
set -- $hits
check "wakeup latency: wakings of kwake counted, at least $N (got ${1:-none})" \
	[ "${1:-0}" -ge $N ]
# the switches in of kwake with a waking of it since its last one
want=$(awk '/sched_waking: comm=kwake /{w=1} /sched_switch: .*next_comm=kwake /{if(w)n++; w=0} END{print n+0}' "$T/w.txt")
check "wakeup latency: one match per switch in after a waking ($want, got ${2:-none})" \
	[ "$want" -ge 1 -a "${2:-x}" = "$want" ]
check "wakeup latency: one latency per match (${3:-none} = ${2:-none})" [ "${3:-x}" = "${2:-y}" ]
nsyn=$(grep -c 'wakeup_latency: lat=' "$T/w.txt")
check "wakeup latency: the synthetic events recorded, one per match ($nsyn)" [ "$nsyn" = "${2:-y}" ]
bad=$(sed -n 's/.*wakeup_latency: lat=\([0-9]*\) .*/\1/p' "$T/w.txt" | awk '$1 >= 1000000' | wc -l)
check "wakeup latency: every latency under a second ($bad not)" [ "$bad" = 0 ]
follow=$(grep -A1 'wakeup_latency: lat=' "$T/w.txt" | grep -c 'sched_switch: .*next_comm=kwake')
check "wakeup latency: each synthetic event on the timeline just before its switch ($follow)" \
	[ "$follow" = "$nsyn" ]

"$U" record -o "$T/t.dat" -e sched:sched_switch -R 'traceoff if prev_comm=="kwake"' \
	-e sched:sched_waking -R 'traceon if comm=="kwake"' \
	-- "$T/kwake" sleep $N >"$T/t.out" 2>"$T/t.err"
"$U" report -i "$T/t.dat" >"$T/t.txt" 2>&1
out=$(grep -c 'sched_switch: prev_comm=kwake' "$T/t.txt")
wk=$(grep -c 'sched_waking: comm=kwake' "$T/t.txt")
check "traceoff/traceon: no switch out of kwake saved (got $out)" [ "$out" = 0 ]
check "traceoff/traceon: every waking of kwake saved, at least $N (got $wk)" [ "$wk" -ge $N ]

"$U" record -o "$T/e.dat" -e sched:sched_switch \
	-R 'enable_event:sched:sched_waking:3 if prev_comm=="kwake" && prev_state==1' \
	-R 'disable_event:sched:sched_waking if next_comm=="kwake"' \
	-- "$T/kwake" sleep $N >"$T/e.out" 2>"$T/e.err"
# the kernel's triggers saw every switch, utrace's own start-up's too
# (docs/utrace-record.md, KERNEL EVENTS): replayed on all of them
"$U" report -O utrace-own -i "$T/e.dat" >"$T/e.txt" 2>&1
# replay the two triggers on the saved switches: a waking of kwake saved
# only while enabled, and as many enablings as :3 allows of those the
# switches made possible (a switch in the kernel left out keeps a window
# open over more than one waking)
read -r bad windows fired could < <(awk '
	/sched_switch: prev_comm=kwake .*prev_state=S / {
		if (!on && left > 0) { on = 1; left--; seen = 0; f++ }
		if (!free) { free = 1; c++ } }
	/sched_switch: .*next_comm=kwake / { on = 0; free = 0 }
	/sched_waking: comm=kwake / { if (!on) bad++; else if (!seen) { seen = 1; w++ } }
	BEGIN { left = 3 } END { print bad + 0, w + 0, f + 0, c + 0 }' "$T/e.txt")
want=$((could < 3 ? could : 3))
check "enable_event:3: no waking of kwake saved while disabled (got $bad)" [ "$bad" = 0 ]
check "enable_event:3: $want enablings of $could possible (got $fired)" \
	[ "$fired" = "$want" -a "$fired" -ge 1 ]
check "enable_event:3: wakings saved in each enabled window (got $windows of $fired)" \
	[ "$windows" = "$fired" ]

# the synthetic event fires without an -e naming it (not saved then)
"$U" record -o "$T/n.dat" --synthetic 'wakeup_latency u64 lat; pid_t pid' \
	-e sched:sched_waking -R 'hist:keys=pid:ts0=common_timestamp.usecs if comm=="kwake"' \
	-e sched:sched_switch -R 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,next_pid)' \
	-- "$T/kwake" sleep $N >"$T/n.out" 2>"$T/n.err"
st=$?
"$U" report --hist -i "$T/n.dat" >"$T/n.hist" 2>&1
nsyn=$("$U" report -i "$T/n.dat" 2>&1 | grep -c 'wakeup_latency: ')
hits=$(sed -n 's/^    Hits: //p' "$T/n.hist" | sed -n 2p)
"$U" report -i "$T/n.dat" >"$T/n.txt" 2>&1
want=$(awk '/sched_waking: comm=kwake /{w=1} /sched_switch: .*next_comm=kwake /{if(w)n++; w=0} END{print n+0}' "$T/n.txt")
check "no -e synthetic: the onmatch() trigger ran (status $st, Hits ${hits:-none} of $want), no record ($nsyn)" \
	[ "$st" = 0 -a "${hits:-x}" = "$want" -a "$nsyn" = 0 ]

# disable_hist:1 at kwake's first sleep: its wakings never counted, the
# hist [paused]; a paused hist enabled by enable_hist at each sleep: every
# waking counted, [active]
"$U" record -o "$T/h1.dat" -v -e sched:sched_waking -R 'hist:keys=pid if comm=="kwake"' \
	-e sched:sched_switch -R 'disable_hist:sched:sched_waking:1 if prev_comm=="kwake" && prev_state==1' \
	-- "$T/kwake" sleep $N >"$T/h1.out" 2>"$T/h1.err"
"$U" report --hist -i "$T/h1.dat" >"$T/h1.hist" 2>&1
hits=$(sed -n 's/^    Hits: //p' "$T/h1.hist")
st=$(grep -c '^# trigger info: .*\[paused\]$' "$T/h1.hist")
check "disable_hist:1: no waking counted (Hits ${hits:-none}), [paused] ($st)" \
	[ "${hits:-x}" = 0 -a "$st" = 1 ]
"$U" record -o "$T/h2.dat" -v -e sched:sched_waking -R 'hist:keys=pid:pause if comm=="kwake"' \
	-e sched:sched_switch -R 'enable_hist:sched:sched_waking if prev_comm=="kwake" && prev_state==1' \
	-- "$T/kwake" sleep $N >"$T/h2.out" 2>"$T/h2.err"
"$U" report --hist -i "$T/h2.dat" >"$T/h2.hist" 2>&1
hits=$(sed -n 's/^    Hits: //p' "$T/h2.hist")
st=$(grep -c '^# trigger info: .*\[active\]$' "$T/h2.hist")
check "hist:pause + enable_hist: every waking counted, at least $N (Hits ${hits:-none}), [active] ($st)" \
	[ "${hits:-0}" -ge $N -a "$st" = 1 ]

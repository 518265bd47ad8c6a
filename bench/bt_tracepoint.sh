#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/bt_tracepoint.sh [BUILD_DIR]   (BUILD_DIR defaults to build)
#
# What a system-wide kernel tracepoint costs the tool, `utrace bt` against
# bpftrace, side by side in one run: both run at once, system-wide, the
# same one-liner
#
#   tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }
#
# over the same workload, a shell loop of `cat /etc/hostname` (cat copied
# as "bttpcat", apart from the machine's other cats: 31 openat each here)
# started once both have attached and run for a fixed time.  bpftrace
# counts in the kernel (its BPF program runs in the workload's system
# calls); utrace bt records each event into its tracefs instance and
# decodes and replays the records in the tool, a reading each 20 ms
# (issues 25/27).  Printed per tool: its CPU (user + system of its
# threads, /proc/PID/task/*/schedstat, in ns: bpftrace's is too small for
# /proc/PID/stat's ticks) over the workload's time and half a second
# after (utrace bt's last reading; start-up and the final print left
# out), that CPU per second, the whole run's (time(1): start-up, and the
# readings a tool that fell behind still owed, included), @[bttpcat] and that per cat the loop ran,
# all the events counted (the whole system's openat, each tool's own
# included) and the tool's CPU per event; then utrace bt's CPU over
# bpftrace's.  The @[bttpcat] counts must agree roughly (utrace bt names
# a thread once, not at each event: a thread gone before it was named is
# "<...>").
#
# BASE_BUILD=DIR runs that build's utrace bt beside them too ("bt-base":
# the figures of a change, before and after, in the same seconds).
# Knobs: BTTP_SECS (10), KEEP=1 (the tools' outputs left in the folder
# under /tmp).  Needs root and bpftrace (its column skipped
# without).  Timings are never pass/fail.
. "$(dirname "$0")/lib.sh"
SECS=${BTTP_SECS:-10}
bench_tmp

[ "$(id -u)" = 0 ] || die "needs root (kernel tracepoints, BPF)"
cp "$(command -v cat)" "$OUT/bttpcat" || die "cannot copy cat"
PROG='tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }'

tools=(bt)
declare -A CMD=([bt]="$U")
if [ -n "${BASE_BUILD:-}" ]; then
	[ -x "$BASE_BUILD/utrace" ] || die "$BASE_BUILD/utrace not found"
	tools+=(bt-base)
	CMD[bt-base]=$BASE_BUILD/utrace
fi
if command -v bpftrace >/dev/null; then
	tools+=(bpftrace)
	CMD[bpftrace]=bpftrace
else
	echo "bt_tracepoint.sh: no bpftrace: its column is skipped"
fi

# CPU seconds (user + system) of process PID's threads so far: their
# schedstat's run time, in ns (its stat's ticks of 10 ms read bpftrace's
# 0.00)
cpu() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.4f\n", s / 1e9 }'; }
now() { date +%s.%N; }

declare -A PID WRAP
stop() {
	for t in "${tools[@]}"; do [ -n "${PID[$t]:-}" ] && kill -INT "${PID[$t]}" 2>/dev/null; done
	[ -n "${WL:-}" ] && kill "$WL" 2>/dev/null
}
trap 'stop; [ -n "${KEEP:-}" ] || rm -rf "$OUT"' EXIT
# (under time(1), for the whole run's CPU: the readings a tool still owes
# when the workload stops come after the window, at its end)
for t in "${tools[@]}"; do
	case $t in
	bpftrace) set -- bpftrace ;;
	*) set -- "${CMD[$t]}" bt ;;
	esac
	/usr/bin/time -f '%U %S' -o "$OUT/$t.time" "$@" -e "$PROG" >"$OUT/$t.out" 2>&1 &
	WRAP[$t]=$!
done
declare -A T0=() C0=() C1=() CPU=() N=()
for _ in $(seq 600); do # 60 s at most for both to attach
	for t in "${tools[@]}"; do
		[ -z "${PID[$t]:-}" ] && PID[$t]=$(pgrep -P "${WRAP[$t]}")
		[ -z "${T0[$t]:-}" ] && [ -n "${PID[$t]}" ] && grep -q '^Attaching' "$OUT/$t.out" &&
			T0[$t]=$(now)
	done
	[ "${#T0[@]}" = "${#tools[@]}" ] && break
	sleep 0.1
done
[ "${#T0[@]}" = "${#tools[@]}" ] || die "a tool did not attach: $(cat "$OUT"/*.out)"
sleep 1
for t in "${tools[@]}"; do C0[$t]=$(cpu "${PID[$t]}"); done
# (cat under a name of its own, "bttpcat", apart from the machine's other
# cats; the loop's count of cats written at its end: openat per cat)
(n=0
trap 'echo $n >"$OUT/cats"; exit' TERM
while :; do
	"$OUT/bttpcat" /etc/hostname
	n=$((n + 1))
done >/dev/null) &
WL=$!
sleep "$SECS"
kill "$WL"
wait "$WL" 2>/dev/null
WL=
sleep 0.5 # utrace bt's last reading of the workload's events
for t in "${tools[@]}"; do C1[$t]=$(cpu "${PID[$t]}"); done
for t in "${tools[@]}"; do kill -INT "${PID[$t]}"; done
for t in "${tools[@]}"; do wait "${WRAP[$t]}"; done

printf 'workload: a loop of cat /etc/hostname for %s s, %s cats (load %s)\n' "$SECS" \
	"$(cat "$OUT/cats")" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %12s %12s %12s %12s %8s %10s %14s\n' tool "tool CPU s" "CPU s / s" "whole run s" \
	"@[bttpcat]" "per cat" events "CPU us/event"
for t in "${tools[@]}"; do
	n=$(sed -n 's/^@\[bttpcat\]: \([0-9]*\)$/\1/p' "$OUT/$t.out")
	all=$(sed -n 's/^@\[.*\]: \([0-9]*\)$/\1/p' "$OUT/$t.out" | awk '{ s += $1 } END { print s + 0 }')
	grep -v '^@\|^$\|^Attaching\|RLIMIT_MEMLOCK' "$OUT/$t.out" | sed "s/^/$t: /" | head -5 >&2
	awk -v t="$t" -v c0="${C0[$t]}" -v c1="${C1[$t]}" -v n="${n:-0}" -v all="$all" -v s="$SECS" \
		-v cats="$(cat "$OUT/cats")" -v whole="$(tail -1 "$OUT/$t.time" | awk '{ print $1 + $2 }')" 'BEGIN {
		cpu = c1 - c0
		printf "%-9s %12.3f %12.3f %12.2f %12d %8.2f %10d %14.2f\n", t, cpu, cpu / s, whole, n,
			cats ? n / cats : 0, all,
			all ? cpu * 1e6 / all : 0 }'
	CPU[$t]=$(awk -v a="${C0[$t]}" -v b="${C1[$t]}" 'BEGIN { print b - a }')
	N[$t]=${n:-0}
done
if [ -n "${CPU[bpftrace]:-}" ]; then
	awk -v b="${CPU[bpftrace]}" -v u="${CPU[bt]}" -v nb="${N[bpftrace]}" -v nu="${N[bt]}" 'BEGIN {
		printf "utrace bt / bpftrace: tool CPU %.1fx; counts %d / %d (%+.1f%%)\n",
			u / (b ? b : 0.0001), nu, nb, nb ? (nu - nb) * 100 / nb : 0 }'
fi
if [ -n "${CPU[bt-base]:-}" ]; then
	awk -v b="${CPU[bt-base]}" -v u="${CPU[bt]}" -v nb="${N[bt-base]}" -v nu="${N[bt]}" 'BEGIN {
		printf "utrace bt / its base: tool CPU %.2fx; counts %d / %d\n", u / (b ? b : 0.01), nu, nb }'
fi

# the machine this ran on, for reading the figures elsewhere
bench_floors

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/offcpu.sh BUILD_DIR - utrace record --off-cpu against the
# real kernel's context switches:
#
#   - tests/kernel/ksleep.c sleeps 100 ms in a() and 300 ms in b(), twice:
#     report --samples prints an 'offcpu-time' section after cpu-clock's (if
#     any),
#     its event count (ns switched out) at least the 800 ms slept and at
#     most the run's own wall time, and -g caller splits it between a and
#     b as the sleeps do: a at least its 200 ms of the count C, at most
#     C - 600 ms (b's sleeps); b likewise.  On an idle machine C is 800 ms
#     and that is 25/75 exactly; on a busy one, waiting to run again after
#     each wake-up and preemptions count too, and the bounds widen by
#     what the run itself measured, not by a fixed window.
#   - --off-cpu without -F is refused
#
# (perf record --off-cpu needs perf built with BPF skeletons, which
# Debian's is not: no comparison with perf here.)
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
CC=${CC:-cc}

$CC -O0 -fno-omit-frame-pointer -o "$T/ksleep" "$ROOT/tests/kernel/ksleep.c" || exit 1
t0=$(date +%s%N)
if ! (cd "$T" && "$U" record -p nop -F 999 --call-graph fp --off-cpu -o o.dat -- ./ksleep \
	>/dev/null 2>rec.err); then
	grep -q "perf_event_open" "$T/rec.err" && unsupported "$(head -1 "$T/rec.err")"
	notok "record -F 999 --off-cpu"
	sed 's/^/#   /' "$T/rec.err"
	exit 1
fi
wall=$(($(date +%s%N) - t0))
n=$(sed -n 's/^utrace record: \([0-9]*\) off-CPU samples$/\1/p' "$T/rec.err")
check "record says how many off-CPU samples (${n:-none}: at least the 4 sleeps)" \
	test "${n:-0}" -ge 4

"$U" report --samples -g caller -i "$T/o.dat" >"$T/rep.txt" 2>"$T/rep.err"
check "report --samples exits 0" test -s "$T/rep.txt" -a ! -s "$T/rep.err"
# ksleep burns next to no CPU: cpu-clock's section is there if it got a sample
events=$(grep "^# Samples: .* of event '" "$T/rep.txt" | sed "s/.*event '//; s/'$//" | tr '\n' ' ')
check "an offcpu-time section, last (got: $events)" \
	test "$events" = "offcpu-time " -o "$events" = "cpu-clock offcpu-time " -o \
	"$events" = "cpu-clock:u offcpu-time "
count=$(awk '/of event .offcpu-time/ { f = 1 } f && /^# Event count/ { print $NF; exit }' \
	"$T/rep.txt")
check "offcpu-time's event count: the 800 ms slept to the run's $((wall / 1000000)) ms (got ${count:-none} ns)" \
	awk -v c="${count:-0}" -v w="$wall" 'BEGIN { exit !(c >= 800e6 && c <= w) }'
# the off-CPU section's tree: main, then a and b
branch() { # branch FUNC: --N%--FUNC in offcpu-time's section
	awk -v f="$1" '/of event .offcpu-time/ { s = 1 }
		s && match($0, /--[0-9.]+%--/) && substr($0, RSTART + RLENGTH) == f {
			print substr($0, RSTART + 2, RLENGTH - 5); exit }' "$T/rep.txt"
}
# between: GOT (a %) of C is at least SLEPT ns and at most C - OTHERS ns
# (the other function's sleeps), with the report's rounding
between() { # between GOT SLEPT OTHERS
	awk -v g="$1" -v s="$2" -v o="$3" -v c="${count:-0}" 'BEGIN {
		exit !(g != "" && c > 0 && g >= 100 * s / c - 0.01 && g <= 100 * (c - o) / c + 0.01) }'
}
bounds() { # bounds SLEPT OTHERS: the window, for the check's name
	awk -v s="$1" -v o="$2" -v c="${count:-1}" \
		'BEGIN { printf "%.2f%%..%.2f%%", 100 * s / c, 100 * (c - o) / c }'
}
for want in a:200e6:600e6 b:600e6:200e6; do
	IFS=: read -r f slept others <<<"$want"
	got=$(branch "$f")
	check "off CPU under $f: its sleeps' share, $(bounds "$slept" "$others") (got ${got:-none}%)" \
		between "$got" "$slept" "$others"
done

"$U" record -p nop --off-cpu -o "$T/x.dat" -- "$T/ksleep" >"$T/x.out" 2>&1
rc=$?
check "--off-cpu without -F: exit 2 and says so ($(head -1 "$T/x.out"))" \
	test "$rc" -eq 2 -a -n "$(grep 'off-cpu goes with -F' "$T/x.out")"
exit 0

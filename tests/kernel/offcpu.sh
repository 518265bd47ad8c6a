#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/offcpu.sh BUILD_DIR - utrace record --off-cpu against the
# real kernel's context switches:
#
#   - tests/kernel/ksleep.c sleeps 100 ms in a() and 300 ms in b(), twice:
#     report --samples prints an 'offcpu-time' section after cpu-clock's (if
#     any),
#     its event count (ns switched out) at least the 800 ms slept and not
#     20% more, and -g caller splits it 25/75 between a and b within 3
#     points
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
if ! (cd "$T" && "$U" record -p nop -F 999 --call-graph fp --off-cpu -o o.dat -- ./ksleep \
	>/dev/null 2>rec.err); then
	grep -q "perf_event_open" "$T/rec.err" && unsupported "$(head -1 "$T/rec.err")"
	notok "record -F 999 --off-cpu"
	sed 's/^/#   /' "$T/rec.err"
	exit 1
fi
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
check "offcpu-time's event count is the time slept: 800 ms to 960 ms (got ${count:-none} ns)" \
	awk -v c="${count:-0}" 'BEGIN { exit !(c >= 800e6 && c <= 960e6) }'
# the off-CPU section's tree: main, then a and b
branch() { # branch FUNC: --N%--FUNC in offcpu-time's section
	awk -v f="$1" '/of event .offcpu-time/ { s = 1 }
		s && match($0, /--[0-9.]+%--/) && substr($0, RSTART + RLENGTH) == f {
			print substr($0, RSTART + 2, RLENGTH - 5); exit }' "$T/rep.txt"
}
for want in a:25 b:75; do
	got=$(branch "${want%:*}")
	check "off CPU under ${want%:*}: ${want#*:}% (got ${got:-none}%)" near "${want#*:}" "$got"
done

"$U" record -p nop --off-cpu -o "$T/x.dat" -- "$T/ksleep" >"$T/x.out" 2>&1
rc=$?
check "--off-cpu without -F: exit 2 and says so ($(head -1 "$T/x.out"))" \
	test "$rc" -eq 2 -a -n "$(grep 'off-cpu goes with -F' "$T/x.out")"
exit 0

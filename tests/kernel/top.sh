#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/top.sh BUILD_DIR - utrace top against the real kernel's
# perf_event_open, non-interactively (--stdio -d SECS -n N), on
# tests/kernel/kburn.c (60% of its CPU time in burn60):
#
#   - -- COMMAND: N screens, each perf top's header (PerfTop: ... irqs/sec,
#     the event, the target) and rows (Overhead, Shared Object, Symbol),
#     the top row burn60 in kburn; it ends when the command does (exit 0)
#   - -p PID of a running tests/kernel/kdwarf.c (c burns all its time):
#     c on top, the header says target_pid; the process is left running
#   - the whole system (no target): kdwarf's c among the rows
#   - SIGINT (Ctrl-C) ends it cleanly: exit 0, a last screen printed
#   - bad values: one line, exit 2
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
T=$(mktemp -d) || exit 1
BG=
trap '[ -n "$BG" ] && kill $BG 2>/dev/null; rm -rf "$T"' EXIT INT TERM
CC=${CC:-cc}

$CC -O2 -fno-omit-frame-pointer -o "$T/kburn" "$ROOT/tests/kernel/kburn.c" || exit 1
$CC -O2 -o "$T/kdwarf" "$ROOT/tests/kernel/kdwarf.c" || exit 1
top_row() { # top_row FILE: the first row of the last screen, "dso sym"
	awk '/PerfTop:/ { row = ""; n = 0 } /^ +[0-9.]+%/ && !n++ { row = $2 " " $NF }
		END { print row }' "$1"
}

timeout 60 "$U" top --stdio -d 1 -n 2 -E 10 -- "$T/kburn" 30000000 >"$T/c.txt" 2>"$T/c.err"
rc=$?
grep -q "perf_event_open" "$T/c.err" && unsupported "$(head -1 "$T/c.err")"
check "-- COMMAND: exit 0 (got $rc: $(head -1 "$T/c.err"))" test "$rc" -eq 0
n=$(grep -c '^   PerfTop: ' "$T/c.txt")
check "-n 2: two screens, or fewer if the command ended first (got $n)" test "$n" -ge 1 -a "$n" -le 2
check "the header: irqs/sec, the event, the command" \
	grep -Eq '^   PerfTop: +[0-9]+ irqs/sec  kernel: *[0-9.]+%  lost: [0-9]+ \[999Hz cpu-clock(:u)?\],  \(command: .*kburn, [0-9]+ CPUs?\)$' "$T/c.txt"
check "the top row is kburn's burn60 (got '$(top_row "$T/c.txt")')" \
	test "$(top_row "$T/c.txt")" = "kburn burn60"
check "rows: Overhead, Shared Object, Symbol" grep -Eq '^ +[0-9]+\.[0-9]{2}%  kburn +\[\.\] burn30$' "$T/c.txt"

"$T/kdwarf" 4000000000 >/dev/null &
BG=$!
sleep 0.3
timeout 30 "$U" top --stdio -d 1 -n 1 -p "$BG" >"$T/p.txt" 2>&1
check "-p PID: the top row is kdwarf's c (got '$(top_row "$T/p.txt")')" \
	test "$(top_row "$T/p.txt")" = "kdwarf c"
check "-p PID: the header names the target" grep -q "(target_pid: $BG, " "$T/p.txt"
check "-p PID: the process is left running" kill -0 "$BG"

timeout 30 "$U" top --stdio -d 1 -n 1 -E 0 >"$T/a.txt" 2>&1
check "the whole system: kdwarf's c among the rows" grep -Eq '  kdwarf +\[\.\] c$' "$T/a.txt"
check "the whole system: the header says all" grep -q "(all, " "$T/a.txt"

"$U" top --stdio -d 0.5 -p "$BG" >"$T/i.txt" 2>&1 &
TP=$!
sleep 1.5
kill -INT "$TP"
for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$TP" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$TP" 2>/dev/null; then
	notok "SIGINT ends it"
	kill -9 "$TP"
else
	wait "$TP"
	rc=$?
	check "SIGINT ends it cleanly: exit 0 (got $rc), screens printed" \
		test "$rc" -eq 0 -a "$(grep -c PerfTop "$T/i.txt")" -ge 2
fi
kill "$BG"
BG=

for bad in "-d 0" "-d x" "-p x" "-F 0" "-n -1" "--nosuch"; do
	# shellcheck disable=SC2086 # the words of the option
	"$U" top $bad >"$T/bad.txt" 2>&1
	rc=$?
	check "top $bad: exit 2, one line ($(head -1 "$T/bad.txt"))" \
		test "$rc" -eq 2 -a "$(wc -l <"$T/bad.txt")" -eq 1
done
"$U" top -p 1 -- true >"$T/bad.txt" 2>&1
rc=$?
check "-p and a COMMAND: exit 2 ($(head -1 "$T/bad.txt"))" test "$rc" -eq 2
exit 0

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/samples_dwarf.sh BUILD_DIR - utrace record --call-graph
# dwarf against the real kernel's perf_event_open, on tests/kernel/kdwarf.c
# built -O2 -fomit-frame-pointer (main -> a -> b -> c, c burning the CPU):
#
#   - --call-graph dwarf: report --samples -g shows c's whole chain,
#     main, a, b, c, in that order (unwound offline by the CFI)
#   - --call-graph fp on the same program does not (no frame pointers:
#     the kernel's walk stops at c), so the check above can fail
#   - perf record --call-graph dwarf's chain, from main on, is the same
#     (when perf is installed)
#   - --children: a and b get (nearly) all the samples as Children
#   - dwarf,SIZE: perf's limits (a multiple of 8 up to 65528; 0, 65536
#     and words refused with one line, exit 2), an unknown mode refused
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
[ "$(uname -m)" = x86_64 ] || unsupported "--call-graph dwarf is x86_64 only"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
CC=${CC:-cc}
N=${KDWARF_N:-60000000}

$CC -O2 -fomit-frame-pointer -o "$T/kdwarf" "$ROOT/tests/kernel/kdwarf.c" || exit 1
if ! (cd "$T" && "$U" record -p nop -F 999 --call-graph dwarf -o d.dat -- ./kdwarf "$N" \
	>/dev/null 2>rec.err); then
	grep -q "perf_event_open" "$T/rec.err" && unsupported "$(head -1 "$T/rec.err")"
	notok "record -F 999 --call-graph dwarf"
	sed 's/^/#   /' "$T/rec.err"
	exit 1
fi
ok "record -F 999 --call-graph dwarf runs the program"
(cd "$T" && "$U" record -p nop -F 999 --call-graph fp -o f.dat -- ./kdwarf "$N" >/dev/null 2>&1)

# chain FILE: the frames of the tree under c's entry, caller first, ';' between
chain() {
	awk '/\[\.\] c$/ { on = 1; next } on && /^$/ { exit }
		on { gsub(/[|-]/, " "); if (NF == 1) { printf "%s%s", sep, $1; sep = ";" } }' "$1"
}
"$U" report --samples -g -i "$T/d.dat" >"$T/d.txt" 2>&1
"$U" report --samples -g -i "$T/f.dat" >"$T/f.txt" 2>&1
dw=$(chain "$T/d.txt") fp=$(chain "$T/f.txt")
check "dwarf: c's chain is main;a;b;c (got '$dw')" grep -q "main;a;b;c$" <<<"$dw"
check "fp without frame pointers: the chain stops short (got '$fp')" \
	test -n "$fp" -a -z "$(grep 'a;b;c' <<<"$fp")"
if command -v perf >/dev/null; then
	perf record -q -F 999 --call-graph dwarf -o "$T/p.data" "$T/kdwarf" "$N" >/dev/null 2>&1
	perf report --stdio --no-children -g caller -i "$T/p.data" 2>/dev/null >"$T/p.txt"
	pc=$(chain "$T/p.txt")
	# perf adds inlined frames ("__libc_start_main_impl (inlined)"): from main on
	check "perf's dwarf chain from main on is ours (perf '$pc')" \
		test -n "$pc" -a "${pc#*;main;}" = "${dw#*;main;}"
fi
"$U" report --samples --children -i "$T/d.dat" >"$T/c.txt" 2>&1
children() { # children FUNC: its Children share, without the %
	awk -v f="[.] $1" 'index($0, f) && $1 ~ /%$/ { sub(/%/, "", $1); print $1; exit }' "$T/c.txt"
}
for f in a b; do
	got=$(children $f)
	check "--children: $f has over 95% as Children (got ${got:-none}%)" \
		awk -v g="$got" 'BEGIN { exit !(g != "" && g > 95) }'
done

for bad in dwarf,0 dwarf,65536 dwarf,8k dwarf, lbr; do
	"$U" record -p nop -F 99 --call-graph "$bad" -- true >"$T/bad.txt" 2>&1
	rc=$?
	check "--call-graph $bad: exit 2, one line ($(head -1 "$T/bad.txt"))" \
		test "$rc" -eq 2 -a "$(wc -l <"$T/bad.txt")" -eq 1
done
(cd "$T" && "$U" record -p nop -F 99 --call-graph dwarf,1 -o one.dat -- ./kdwarf 1000 \
	>/dev/null 2>&1)
check "--call-graph dwarf,1 is rounded up to 8 bytes, as perf does" test -s "$T/one.dat"
exit 0

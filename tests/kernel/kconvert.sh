#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/kconvert.sh BUILD_DIR - utrace convert writes every event of
# a recording, not only the function records: examples/wordfreq.c, built
# with `utrace cflags`, recorded with its demo:demo_word tracepoints, its
# utrace_printf text, and the kernel's syscalls:sys_enter_write and
# sched:sched_switch, then converted and read by the real trace-cmd:
#
#   - trace-cmd report reads the file without a word on stderr
#   - as many demo_word, sys_enter_write, print and funcgraph_entry lines as
#     utrace report shows of each (counted from utrace's own report, never
#     a fixed number), with the same TP_printk text for demo_word
#   - the write(2) of the program's output is fd 1 in trace-cmd too
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U" "$B/libutrace.so"
need_root "kernel events need root (tracefs instances)"
find_tracefs
if [ -z "$TR" ] || [ ! -d "$TR/instances" ]; then
	unsupported "no tracefs with instances"
fi
for e in syscalls/sys_enter_write sched/sched_switch; do
	[ -d "$TR/events/$e" ] || unsupported "the kernel has no $e event"
done
command -v trace-cmd >/dev/null || unsupported "trace-cmd is not installed"

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
CC=${CC:-cc}

if ! $CC -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/examples" -o "$T/wordfreq" \
	"$ROOT/examples/wordfreq.c" 2>"$T/cc.err"; then
	notok "build examples/wordfreq.c"
	sed 's/^/#   /' "$T/cc.err"
	exit 1
fi
(cd "$T" && "$U" record -e demo:demo_word -e syscalls:sys_enter_write -e sched:sched_switch \
	-l main -l 'report*' -l tokenize -o ev.dat -- ./wordfreq >out.txt 2>rec.err)
check "record the demo with user and kernel events" test -s "$T/ev.dat"
"$U" report -i "$T/ev.dat" >"$T/report.txt" 2>&1
"$U" convert -i "$T/ev.dat" -o "$T/trace.dat" >"$T/conv.out" 2>&1
check "convert exits 0" test -s "$T/trace.dat"
grep -q "of them are tracepoint, kernel or text events" "$T/conv.out" &&
	ok "convert counts the tracepoint, kernel and text events" ||
	notok "convert counts the tracepoint, kernel and text events: $(cat "$T/conv.out")"

trace-cmd report "$T/trace.dat" >"$T/tc.txt" 2>"$T/tc.err"
check "trace-cmd report exits 0 and says nothing on stderr" test ! -s "$T/tc.err"

# count NAME_IN_UTRACE NAME_IN_TRACE_CMD: lines of each
same_count() {
	local u t
	u=$(grep -c "$2" "$T/report.txt")
	t=$(grep -c "$3" "$T/tc.txt")
	if [ "$u" -gt 0 ] && [ "$u" -eq "$t" ]; then
		ok "$1: $t in trace-cmd, as in utrace report"
	else
		notok "$1: utrace report has $u, trace-cmd $t"
	fi
}
same_count "demo_word tracepoints" '/\* demo_word: ' ' demo_word: '
same_count "sys_enter_write kernel events" '/\* sys_enter_write: ' ' sys_enter_write: '
same_count "utrace_printf text as print events" '/\* tokenized ' 'print: *utrace_printf: tokenized'

# the same TP_printk text, in the same order
grep -o 'demo_word: word=[a-z]* count=[0-9]*' "$T/report.txt" >"$T/u.words"
grep -o 'demo_word: *word=[a-z]* count=[0-9]*' "$T/tc.txt" | sed 's/: */: /' >"$T/t.words"
check "demo_word text and order as utrace report's" cmp -s "$T/u.words" "$T/t.words"
grep -q 'sys_enter_write: *fd: 0x00000001' "$T/tc.txt" &&
	ok "the program's write to stdout is fd 1 in trace-cmd" ||
	notok "the program's write to stdout is fd 1 in trace-cmd"
grep -q 'funcgraph_entry:.*main() {' "$T/tc.txt" &&
	ok "the function records are still there (main() {)" ||
	notok "the function records are still there (main() {)"
exit 0

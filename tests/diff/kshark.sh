#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/diff/kshark.sh BUILD_DIR - KernelShark on utrace convert's files
# (issue 22 items 4 and 6), loaded headless through libkshark, KernelShark's
# own data library (tests/diff/kshark.c): examples/wordfreq.c recorded
# under function_graph with its demo:demo_word tracepoints, utrace_printf
# text and (where tracefs has it) the kernel's syscalls:sys_enter_write,
# converted:
#
#   - every row has an event name and a non-negative id (KernelShark keeps
#     ids in an int16_t: a user event numbered from 32768 was a blank row)
#   - the rows per event are trace-cmd report's
#   - every tracepoint, kernel and text row's time, pid, name and info
#     column are trace-cmd report -t's
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U" "$B/libutrace.so"
need_tool trace-cmd "trace-cmd is not installed"
need_tool pkg-config "pkg-config is not installed"
pkg-config --exists libkshark || unsupported "libkshark-dev is not installed"
# shellcheck disable=SC2046 # pkg-config gives lists of flags
if ! $CC -O2 $(pkg-config --cflags libkshark) -o "$T/kshark" "$ROOT/tests/diff/kshark.c" \
	$(pkg-config --libs libkshark) 2>"$T/cc.err" || ! build_wordfreq; then
	notok "build tests/diff/kshark.c and examples/wordfreq.c"
	sed 's/^/#   /' "$T/cc.err"
	exit 1
fi
write_event
(cd "$T" && "$U" record -e demo:demo_word "${kev[@]}" -o w.dat -- ./wordfreq >out.txt 2>rec.err)
"$U" convert -i "$T/w.dat" -o "$T/w.trace.dat" >"$T/conv.out" 2>&1
check "record and convert wordfreq ${kev[*]} ($(tail -1 "$T/conv.out"))" test -s "$T/w.trace.dat"
"$T/kshark" "$T/w.trace.dat" >"$T/ks.txt" 2>"$T/ks.err"
check "libkshark loads it ($(wc -l <"$T/ks.txt") rows, $(head -c 200 "$T/ks.err"))" \
	test -s "$T/ks.txt" -a ! -s "$T/ks.err"
bad=$(awk '$3 < 0 || $4 == "?"' "$T/ks.txt" | wc -l)
check "every row has a name and an id in int16_t's range ($bad have not)" test "$bad" -eq 0
check "the demo_word rows are there" grep -q " demo/demo_word word=" "$T/ks.txt"

# rows per event: KernelShark's and trace-cmd's
awk '{ n = $4; sub(/.*\//, "", n); c[n]++ } END { for (n in c) print n, c[n] }' "$T/ks.txt" |
	sort >"$T/ks.count"
# (-R: raw, one line a record; without it a leaf's entry and exit are one)
trace-cmd report -R "$T/w.trace.dat" 2>/dev/null |
	awk '$3 ~ /^[0-9]+\.[0-9]+:$/ { n = $4; sub(/:$/, "", n); c[n]++ } END { for (n in c) print n, c[n] }' |
	sort >"$T/tc.count"
same "the rows per event are trace-cmd report -R's" "$T/tc.count" "$T/ks.count"
trace-cmd report -t "$T/w.trace.dat" 2>/dev/null >"$T/tc.txt"

# the events' rows: time (ns), pid, name, info as trace-cmd prints them
awk '$4 !~ /funcgraph_/ { n = $4; sub(/.*\//, "", n); t = $0
	sub(/^[^ ]+ [^ ]+ [^ ]+ [^ ]+ ?/, "", t); gsub(/  +/, " ", t); print $1, $2, n, t }' \
	"$T/ks.txt" >"$T/ks.events"
awk '$3 ~ /^[0-9]+\.[0-9]+:$/ && $4 !~ /^funcgraph_/ {
	pid = $1; sub(/.*-/, "", pid); ts = $3; sub(/:$/, "", ts); sub(/\./, "", ts); sub(/^0+/, "", ts)
	n = $4; sub(/:$/, "", n); t = $0; sub(/^[^:]*\] *[0-9.]+: *[a-z_0-9]+: */, "", t)
	gsub(/  +/, " ", t); print ts, pid, n, t }' "$T/tc.txt" >"$T/tc.events"
check "there are tracepoint rows to compare ($(wc -l <"$T/ks.events"))" test -s "$T/ks.events"
same "every event row's time, pid, name and info are trace-cmd report -t's" \
	"$T/tc.events" "$T/ks.events"
exit 0

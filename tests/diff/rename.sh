#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/diff/rename.sh BUILD_DIR - threads renamed with pthread_setname_np
# (issue 22 item 5) are shown by their last name, as the kernel's
# saved_cmdlines and so trace-cmd show a task: tests/diff/rename.c
# recorded under
# function_graph, then
#
#   - utrace report -O funcgraph-proc, utrace report --stat
#   - trace-cmd report on the converted file (its saved_cmdlines)
#   - dump --chrome's thread_name metadata, dump --perfetto's thread
#     descriptors (protoc)
#
# all name the two threads main-renamed and worker-new.
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U" "$B/libutrace.so"
if ! $CC -O1 -pthread $("$U" cflags) -o "$T/rename" "$ROOT/tests/diff/rename.c" 2>"$T/cc.err"; then
	notok "build tests/diff/rename.c"
	sed 's/^/#   /' "$T/cc.err"
	exit 1
fi
(cd "$T" && "$U" record -o r.dat -- ./rename >out.txt 2>rec.err)
check "record the program ($(tail -1 "$T/rec.err"))" test -s "$T/r.dat"
"$U" report -O funcgraph-proc -i "$T/r.dat" >"$T/rep" 2>&1
check "utrace report -O funcgraph-proc: main-renamed (cut to 7 characters as the kernel cuts)" \
	grep -q " main-re-[0-9]" "$T/rep"
check "utrace report -O funcgraph-proc: worker-new" grep -q " worker--[0-9]" "$T/rep"
check "utrace report -O funcgraph-proc: no line under the first name" \
	test -z "$(grep ' rename-[0-9]' "$T/rep")"
"$U" report --stat -i "$T/r.dat" >"$T/stat" 2>&1
check "utrace report --stat names both by their new names" \
	test -n "$(grep 'main-renamed' "$T/stat")" -a -n "$(grep 'worker-new' "$T/stat")"
if command -v trace-cmd >/dev/null; then
	"$U" convert -i "$T/r.dat" -o "$T/r.trace.dat" >/dev/null 2>&1
	trace-cmd report "$T/r.trace.dat" >"$T/tc" 2>/dev/null
	check "trace-cmd report: main-renamed and worker-new run step()" \
		test -n "$(grep 'main-renamed-[0-9].*step()' "$T/tc")" -a \
		-n "$(grep 'worker-new-[0-9].*step()' "$T/tc")"
	check "trace-cmd report: no line under the first names" test -z "$(grep ' rename-[0-9]' "$T/tc")"
fi
"$U" dump --chrome -i "$T/r.dat" >"$T/c.json" 2>/dev/null
check "Chrome: thread_name main-renamed and worker-new" \
	test -n "$(grep '"thread_name","args":{"name":"main-renamed"}' "$T/c.json")" -a \
	-n "$(grep '"thread_name","args":{"name":"worker-new"}' "$T/c.json")"
if command -v protoc >/dev/null; then
	"$U" dump --perfetto -o "$T/r.pf" -i "$T/r.dat" 2>/dev/null
	protoc -I "$ROOT/tests/diff" --decode=perfetto.protos.Trace perfetto_subset.proto \
		<"$T/r.pf" >"$T/r.pf.txt" 2>/dev/null
	check "Perfetto: thread descriptors main-renamed and worker-new" \
		test -n "$(grep 'thread_name: "main-renamed"' "$T/r.pf.txt")" -a \
		-n "$(grep 'thread_name: "worker-new"' "$T/r.pf.txt")"
fi
exit 0

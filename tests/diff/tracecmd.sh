#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/diff/tracecmd.sh BUILD_DIR - trace-cmd on utrace convert's files
# (issue 22 items 4 and 6): examples/wordfreq.c built with `utrace
# cflags`, recorded under function_graph with its demo:demo_word
# tracepoints and utrace_printf text (and the kernel's
# syscalls:sys_enter_write where tracefs has it), converted:
#
#   - trace-cmd report -t: every tracepoint, kernel and text event with
#     its time (ns), thread, name and fields, as utrace report prints them
#   - trace-cmd report -R: every event's raw fields are Chrome's "args"
#     and Perfetto's debug_annotations (dump --chrome, --perfetto)
#   - trace-cmd report --profile: each function's calls and total time
#     as utrace report --profile's; the tracepoints' count
#   - the event ids of the file fit KernelShark's int16_t: the user
#     events' below 32768 and above every kernel event's
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U" "$B/libutrace.so"
need_tool trace-cmd "trace-cmd is not installed"
if ! build_wordfreq; then
	notok "build examples/wordfreq.c"
	sed 's/^/#   /' "$T/cc.err"
	exit 1
fi
write_event
(cd "$T" && "$U" record -e demo:demo_word "${kev[@]}" -o w.dat -- ./wordfreq >out.txt 2>rec.err)
check "record wordfreq with its tracepoints ${kev[*]}" test -s "$T/w.dat"
"$U" convert -i "$T/w.dat" -o "$T/w.trace.dat" >"$T/conv.out" 2>&1
check "convert exits 0 ($(tail -1 "$T/conv.out"))" test -s "$T/w.trace.dat"
trace-cmd report -t "$T/w.trace.dat" >"$T/tc.txt" 2>"$T/tc.err"
check "trace-cmd report reads it without a word on stderr" test ! -s "$T/tc.err"

# every event: time, thread, name, fields ("print" for utrace_printf text)
"$U" report -t -O funcgraph-abstime -O funcgraph-proc -i "$T/w.dat" >"$T/u.txt" 2>&1
awk -F'|' '$NF ~ /\/\* .* \*\/$/ {
	ts = $1; gsub(/ /, "", ts); task = $2; gsub(/ /, "", task); sub(/.*-/, "", task)
	t = $NF; sub(/^ *\/\* /, "", t); sub(/ \*\/$/, "", t)
	if (t ~ /^[a-z_0-9]+: /) { name = t; sub(/: .*/, "", name); sub(/^[a-z_0-9]+: /, "", t) }
	else name = "print"
	print ts, task, name, t }' "$T/u.txt" >"$T/u.events"
awk '$4 !~ /^funcgraph_(entry|exit):$/ && $3 ~ /^[0-9]+\.[0-9]+:$/ {
	task = $1; sub(/.*-/, "", task); ts = $3; sub(/:$/, "", ts); name = $4; sub(/:$/, "", name)
	t = $0; sub(/^[^:]*\] *[0-9.]+: *[a-z_0-9]+: */, "", t)
	if (name == "print") sub(/^utrace_printf: /, "", t)
	gsub(/  +/, " ", t); print ts, task, name, t }' "$T/tc.txt" >"$T/t.events"
check "utrace report shows the events ($(wc -l <"$T/u.events"))" \
	grep -q " demo_word word=" "$T/u.events"
same "trace-cmd report -t: every event's time, thread, name and fields are utrace report's" \
	"$T/u.events" "$T/t.events"

# every field: trace-cmd report -R's raw fields are Chrome's "args" and
# Perfetto's debug_annotations (numbers compared as numbers: trace-cmd
# prints some in hex); "ts name k=v..." sorted by time
HEX='function num(v,  i, n, c) { if (v !~ /^0x[0-9a-f]+$/) return v; n = 0
	for (i = 3; i <= length(v); i++) { c = index("0123456789abcdef", substr(v, i, 1)) - 1; n = n * 16 + c }
	return sprintf("%.0f", n) }'
trace-cmd report -R -t "$T/w.trace.dat" 2>/dev/null | awk "$HEX"'
	$3 ~ /^[0-9]+\.[0-9]+:$/ && $4 !~ /^(funcgraph_(entry|exit)|print):$/ {
	ts = $3; sub(/:$/, "", ts); sub(/\./, "", ts); name = $4; sub(/:$/, "", name); s = ts + 0 " " name
	for (i = 5; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); s = s " " k "=" num(v) }
	print s }' | sort -n >"$T/t.fields"
"$U" dump --chrome -i "$T/w.dat" 2>/dev/null | awk -F'"args":' '/"ph":"i"/ && NF == 2 {
	ts = $1; sub(/.*"ts":/, "", ts); sub(/,.*/, "", ts); sub(/\./, "", ts)
	name = $1; sub(/.*"name":"[a-z_0-9]*:/, "", name); sub(/".*/, "", name)
	a = $2; sub(/^\{/, "", a); sub(/\}\},?$/, "", a); gsub(/"/, "", a); gsub(/:/, "=", a); gsub(/,/, " ", a)
	print ts + 0, name, a }' | sort -n >"$T/c.fields"
same "Chrome's args are trace-cmd report -R's fields, event by event ($(wc -l <"$T/c.fields"))" \
	"$T/t.fields" "$T/c.fields"
if command -v protoc >/dev/null; then
	"$U" dump --perfetto -o "$T/w.pftrace" -i "$T/w.dat" 2>/dev/null
	protoc -I "$ROOT/tests/diff" --decode=perfetto.protos.Trace perfetto_subset.proto \
		<"$T/w.pftrace" 2>/dev/null | awk '
	/^packet \{/ { ts = ""; s = ""; iid = ""; next }
	/^\}/ { if (s != "") print ts, names[iid] s; next }
	$1 == "timestamp:" && !/^    / { ts = $2 }
	$1 == "iid:" { cur = $2 } !da && $1 == "name:" && /^      / && cur != "" {
		v = $2; gsub(/"/, "", v); sub(/^[a-z_0-9]*:/, "", v); names[cur] = v; cur = "" }
	$1 == "name_iid:" { iid = $2 }
	/debug_annotations \{/ { da = 1; next } da && $1 == "name:" { k = $2; gsub(/"/, "", k) }
	da && $1 ~ /^(int|uint|string)_value:$/ { v = $0; sub(/^ *[a-z_]*: /, "", v); gsub(/"/, "", v) }
	da && /^    \}/ { da = 0; s = s " " k "=" v }' | sort -n >"$T/p.fields"
	same "Perfetto's debug_annotations are trace-cmd report -R's fields ($(wc -l <"$T/p.fields"))" \
		"$T/t.fields" "$T/p.fields"
fi

# calls and total time of each function
"$U" report --profile -f total,call -i "$T/w.dat" >"$T/u.prof" 2>&1
awk "$AWK_NS"'
	$2 ~ /^(ns|us|ms|s)$/ && $3 ~ /^[0-9]+$/ { printf "%s %d %.0f\n", $4, $3, ns($1, $2) }' \
	"$T/u.prof" | sort >"$T/u.fn"
trace-cmd report --profile "$T/w.trace.dat" >"$T/tc.prof" 2>/dev/null
awk '$1 == "Event:" && $2 == "func:" { f = $3; sub(/\(\)$/, "", f); n = $4; gsub(/[()]/, "", n)
	c[f] += n; t[f] += $6 }
	END { for (f in c) printf "%s %d %d\n", f, c[f], t[f] }' "$T/tc.prof" | sort >"$T/t.fn"
check "utrace report --profile lists the functions ($(wc -l <"$T/u.fn"))" test -s "$T/u.fn"
# utrace prints 3 decimals of its unit, cut: the totals agree to that digit
if join "$T/u.fn" "$T/t.fn" | awk "$AWK_NS"'
	NF != 5 || $2 != $4 || farn($3, $5, $2) { bad = 1 } END { exit bad }' && [ "$(wc -l <"$T/u.fn")" = "$(wc -l <"$T/t.fn")" ]; then
	ok "trace-cmd report --profile: every function's calls and total time are utrace's"
else
	notok "trace-cmd report --profile: every function's calls and total time are utrace's"
	diff "$T/u.fn" "$T/t.fn" | head -10 | sed 's/^/#   /'
fi
u=$(grep -c " demo_word " "$T/u.events")
t=$(awk '$1 == "Event:" && $2 ~ /^demo_word:/ { gsub(/[()]/, "", $3); s += $3 } END { print s + 0 }' \
	"$T/tc.prof")
check "trace-cmd report --profile counts $u demo_word events, as utrace (got $t)" test "$u" = "$t"

# the ids: KernelShark keeps them in an int16_t
trace-cmd report --events "$T/w.trace.dat" 2>/dev/null |
	awk '/^system: / { s = $2 } /^name: / { n = $2 } /^ID: / { print s, n, $2 }' >"$T/ids"
uid=$(awk '$1 == "demo" && $2 == "demo_word" { print $3 }' "$T/ids")
kmax=$(awk '$1 != "demo" && $1 != "ftrace" { if ($3 > m) m = $3 } END { print m + 0 }' "$T/ids")
check "demo_word's id in the file ($uid) is below 32768, above the kernel's ($kmax)" \
	test -n "$uid" -a "${uid:-99999}" -lt 32768 -a "${uid:-0}" -gt "$kmax"
exit 0

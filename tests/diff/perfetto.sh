#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/diff/perfetto.sh BUILD_DIR - protoc's decoding of utrace dump
# --perfetto (issue 22 item 6), with Perfetto's own message and field
# names and types (tests/diff/perfetto_subset.proto: Debian packages no
# Perfetto protos), on examples/wordfreq.c recorded under function_graph
# with its demo:demo_word tracepoints:
#
#   - protoc --decode=perfetto.protos.Trace reads it, every field known
#   - every name_iid resolves through the sequence's interned names, each
#     name interned once; every event is on a described thread track
#   - the times' clock: MONOTONIC by default on the sequence and the
#     trace's clock, with a snapshot pairing it with REALTIME
#   - slices balance on every track; each function's slices and their
#     total time are utrace report --profile's calls and total; the
#     instant events are the tracepoints and text utrace report shows
#   - a samples-only recording (-p nop -F 999 -g of tests/kernel/kburn.c):
#     one perf_sample per sample of report --samples; every callstack,
#     frame, function name and mapping resolves and is interned once; the
#     functions sampled at the leaf are report --samples' functions with
#     Self; each leaf frame of the program: addr2line puts its mapping-
#     relative pc in the function the frame names
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U" "$B/libutrace.so"
need_tool protoc "protoc is not installed (protobuf-compiler)"
if ! build_wordfreq; then
	notok "build examples/wordfreq.c"
	sed 's/^/#   /' "$T/cc.err"
	exit 1
fi
(cd "$T" && "$U" record -e demo:demo_word -o w.dat -- ./wordfreq >out.txt 2>rec.err)
check "record wordfreq with its tracepoints" test -s "$T/w.dat"
"$U" dump --perfetto -o "$T/w.pftrace" -i "$T/w.dat" 2>"$T/dump.err"
check "dump --perfetto ($(head -1 "$T/dump.err"))" test -s "$T/w.pftrace"
protoc -I "$ROOT/tests/diff" --decode=perfetto.protos.Trace perfetto_subset.proto \
	<"$T/w.pftrace" >"$T/dec.txt" 2>"$T/dec.err"
check "protoc --decode=perfetto.protos.Trace reads it ($(head -1 "$T/dec.err"))" \
	test -s "$T/dec.txt" -a ! -s "$T/dec.err"
check "every field is one of Perfetto's (none decoded as a bare number)" \
	test -z "$(grep -E '^ *[0-9]+( \{|:)' "$T/dec.txt" | head -1)"

# the clock: packets default to MONOTONIC (utrace's), snapshotted with
# REALTIME no later than the first event
first=$(awk '$1 == "timestamp:" && !/^    / { print $2; exit }' "$T/dec.txt")
awk '/^packet \{/ { n++ } n == 1 && $1 == "timestamp_clock_id:" { d = $2 }
	n == 1 && $1 == "clock_id:" { id = $2 } n == 1 && $1 == "timestamp:" && id { c[id] = $2 }
	n == 1 && $1 == "primary_trace_clock:" { p = $2 }
	END { print d + 0, c[3] + 0, c[1] + 0, p }' "$T/dec.txt" >"$T/clock"
read -r defclock mono real primary <"$T/clock"
check "the packets' clock is MONOTONIC, the trace's clock too (default $defclock, primary $primary)" \
	test "$defclock" = 3 -a "$primary" = BUILTIN_CLOCK_MONOTONIC
check "a snapshot pairs MONOTONIC ($mono, before the first event at ${first:-?}) with REALTIME ($real)" \
	test "$mono" -gt 0 -a "$real" -gt 0 -a "$mono" -le "${first:-0}"

# one line per event: ts track type name; problems as "BAD what"
awk '
function flush() {
	if (type != "") {
		if (!(track in tracks)) print "BAD track", track
		if (iid != "" && !(iid in names)) print "BAD iid", iid
		n = iid != "" ? names[iid] : name
		print ts, track, type, n
	}
	type = ""; iid = ""; name = ""; track = ""
}
/^packet \{/ { depth = 1; next }
depth == 1 && /^\}/ { flush(); depth = 0; next }
/\{$/ { depth++; sect[depth] = $1; next }
/^ *\}/ { depth--; next }
sect[depth] == "track_descriptor" && $1 == "uuid:" { tracks[$2] = 1 }
sect[depth] == "thread" && $1 == "tid:" { threads++ }
sect[depth] == "event_names" && $1 == "iid:" { cur = $2 }
sect[depth] == "event_names" && $1 == "name:" {
	v = $0; sub(/^ *name: "/, "", v); sub(/"$/, "", v)
	if (cur in names) print "BAD iid twice", cur
	if (v in seen) print "BAD name twice", v
	names[cur] = v; seen[v] = 1 }
depth == 1 && $1 == "timestamp:" { ts = $2 }
sect[depth] == "track_event" && $1 == "type:" { type = $2 }
sect[depth] == "track_event" && $1 == "track_uuid:" { track = $2 }
sect[depth] == "track_event" && $1 == "name_iid:" { iid = $2 }
sect[depth] == "track_event" && $1 == "name:" { name = $2 }
END { if (!threads) print "BAD no thread track" }' "$T/dec.txt" >"$T/events"
check "every name_iid resolves, each name interned once, events on described tracks ($(grep -m1 '^BAD' "$T/events"))" \
	test -z "$(grep '^BAD' "$T/events")"

# slices: balanced per track, per function count and total ns
awk '$3 == "TYPE_SLICE_BEGIN" { d[$2]++; st[$2, d[$2]] = $1; nm[$2, d[$2]] = $4 }
	$3 == "TYPE_SLICE_END" { if (d[$2] < 1) { bad = 1; next }
		f = nm[$2, d[$2]]; c[f]++; t[f] += $1 - st[$2, d[$2]]; d[$2]-- }
	END { for (k in d) if (d[k]) bad = 1
	      for (f in c) printf "%s %d %.0f\n", f, c[f], t[f] > "/dev/stderr"; exit bad }' \
	"$T/events" 2>"$T/p.fn"
check "slices balance on every track" test $? -eq 0
sort -o "$T/p.fn" "$T/p.fn"
"$U" report --profile -f total,call -i "$T/w.dat" >"$T/u.prof" 2>&1
awk "$AWK_NS"'
	$2 ~ /^(ns|us|ms|s)$/ && $3 ~ /^[0-9]+$/ { printf "%s %d %.0f\n", $4, $3, ns($1, $2) }' \
	"$T/u.prof" | sort >"$T/u.fn"
if join "$T/u.fn" "$T/p.fn" | awk "$AWK_NS"'
	NF != 5 || $2 != $4 || farn($3, $5, $2) { bad = 1 } END { exit bad }' && [ -s "$T/u.fn" ] &&
	[ "$(wc -l <"$T/u.fn")" = "$(wc -l <"$T/p.fn")" ]; then
	ok "each function's slices and their total time are utrace report --profile's ($(wc -l <"$T/u.fn"))"
else
	notok "each function's slices and their total time are utrace report --profile's"
	diff "$T/u.fn" "$T/p.fn" | head -10 | sed 's/^/#   /'
fi
"$U" report -i "$T/w.dat" >"$T/u.txt" 2>&1
u=$(grep -c '/\* demo_word: ' "$T/u.txt")
p=$(awk '$3 == "TYPE_INSTANT" && $4 == "demo:demo_word"' "$T/events" | wc -l)
check "$u demo_word tracepoints in utrace report, as many instants in Perfetto ($p)" \
	test "$u" -gt 0 -a "$u" -eq "$p"

# the samples: PerfSample packets with interned callstacks
kburn || { notok "build tests/kernel/kburn.c"; exit 1; }
if ! "$U" record -p nop -F 999 -g -o "$T/s.dat" -- "$T/kburn" >/dev/null 2>"$T/srec.err"; then
	grep -q "perf_event_open" "$T/srec.err" && unsupported "$(head -1 "$T/srec.err")"
	notok "record -p nop -F 999 -g"
	exit 1
fi
"$U" dump --perfetto -o "$T/s.pftrace" -i "$T/s.dat" 2>"$T/sdump.err"
check "dump --perfetto of a samples-only recording says nothing is left out ($(head -1 "$T/sdump.err"))" \
	test -s "$T/s.pftrace" -a ! -s "$T/sdump.err"
protoc -I "$ROOT/tests/diff" --decode=perfetto.protos.Trace perfetto_subset.proto \
	<"$T/s.pftrace" >"$T/sdec.txt" 2>"$T/sdec.err"
check "protoc reads it, every field known ($(head -1 "$T/sdec.err"))" \
	test -s "$T/sdec.txt" -a ! -s "$T/sdec.err" -a -z "$(grep -E '^ *[0-9]+( \{|:)' "$T/sdec.txt" | head -1)"
# per sample "S leaf-name" and per leaf frame of the program "F rel_pc name";
# problems as "BAD what"
awk -v prog="$T/kburn" '
function resolve(cs,   n, k, f, leaf) {
	if (!(cs in stack)) { print "BAD callstack", cs; return "" }
	n = split(stack[cs], fr, " ")
	for (k = 1; k <= n; k++) {
		f = fr[k]
		if (!(f in fname)) { print "BAD frame", f; return "" }
		if (!(fname[f] in names)) { print "BAD function_name_id", fname[f]; return "" }
		if (fmap[f] != "" && !(fmap[f] in mpath)) { print "BAD mapping", fmap[f]; return "" }
	}
	leaf = fr[n]
	if (fmap[leaf] != "" && mpath[fmap[leaf]] == prog) print "F", frel[leaf], names[fname[leaf]]
	return names[fname[leaf]]
}
/^    [a-z_]+ \{$/ { kind = $1; iid = ""; delete fid; nf = 0; np = 0; next }
/^    \}$/ {
	if (kind == "function_names" || kind == "mapping_paths") {
		tab = kind == "function_names" ? "names" : "parts"
		if ((tab, iid) in seen) print "BAD twice", tab, iid
		seen[tab, iid] = 1
		if (kind == "function_names") names[iid] = str; else parts[iid] = str
	} else if (kind == "frames") {
		if (("f", iid) in seen) print "BAD twice frame", iid
		seen["f", iid] = 1; fname[iid] = fn; fmap[iid] = mp; frel[iid] = rel; fn = mp = rel = ""
	} else if (kind == "callstacks") {
		if (("c", iid) in seen) print "BAD twice callstack", iid
		seen["c", iid] = 1; stack[iid] = ids; ids = ""
	} else if (kind == "mappings") {
		p = ""; for (k = 1; k <= np; k++) p = p "/" parts[pid[k]]
		mpath[iid] = p
	}
	kind = ""; next
}
kind != "" && $1 == "iid:" { iid = $2 }
kind != "" && $1 == "str:" { str = $2; gsub(/^"|"$/, "", str) }
kind == "frames" && $1 == "function_name_id:" { fn = $2 }
kind == "frames" && $1 == "mapping_id:" { mp = $2 }
kind == "frames" && $1 == "rel_pc:" { rel = $2 }
kind == "callstacks" && $1 == "frame_ids:" { ids = ids " " $2 }
kind == "mappings" && $1 == "path_string_ids:" { pid[++np] = $2 }
$1 == "callstack_iid:" { l = resolve($2); if (l != "") print "S", l }
' "$T/sdec.txt" >"$T/samples"
"$U" report --samples --sort sym -i "$T/s.dat" >"$T/srep" 2>&1
n=$(samples_n "$T/srep")
got=$(grep -c '^S ' "$T/samples")
check "one perf_sample with a callstack per sample: $got, report --samples: $n" test "$got" = "$n"
check "every callstack, frame, name and mapping resolves, interned once ($(grep -m1 '^BAD' "$T/samples"))" \
	test -z "$(grep -m1 '^BAD' "$T/samples")"
awk '$1 == "S" { print $2 }' "$T/samples" | sort -u >"$T/p.leaf"
awk '$1 ~ /%$/ && $2 ~ /^\[.\]$/ { print $3 }' "$T/srep" | sort -u >"$T/u.leaf"
same "the functions sampled at the leaf are report --samples' ($(wc -l <"$T/u.leaf"))" \
	"$T/u.leaf" "$T/p.leaf"
awk '$1 == "F"' "$T/samples" | sort -u >"$T/pf"
while read -r _ rel name; do
	echo "F $rel $(addr2line -f -e "$T/kburn" "$(printf '0x%x' "$rel")" | head -1)"
done <"$T/pf" >"$T/a2l"
check "the program's leaf frames ($(wc -l <"$T/pf"))" test -s "$T/pf"
same "addr2line puts every leaf frame's rel_pc in the function it names" "$T/pf" "$T/a2l"
exit 0

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/samples_flame.sh BUILD_DIR - flame graphs from samples
# (utrace dump --flame-graph on a recording made with -F), on
# tests/kernel/kburn.c (10/30/60% of its CPU time in burn10/30/60):
#
#   - a samples-only recording (-p nop -F 999 --call-graph fp): folded
#     stacks 'outer;...;burn60 N', each function's width its share of
#     the CPU time within its binomial margin (lib.sh near_share), the
#     widths summing to the samples'
#     periods; --svg draws the frames (tooltips in samples), --icicle too;
#     dump --chrome carries them (samples, stackFrames: the same stacks
#     and weights); --perfetto and convert say how many they leave out
#   - a recording with calls and samples: the default source is the
#     functions (the same output as --source functions), --source samples
#     the sampled stacks; a --diff against another recording
#   - --source samples on a file without samples, a bad --source, --source
#     without --flame-graph: one line, exit 1
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U" "$B/libutrace.so"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
CC=${CC:-cc}
N=${KBURN_N:-4000000}

$CC -O2 -fno-omit-frame-pointer -o "$T/kburn" "$ROOT/tests/kernel/kburn.c" || exit 1
$CC -O2 -fno-omit-frame-pointer $("$U" cflags) -o "$T/kburn.u" "$ROOT/tests/kernel/kburn.c" || exit 1
share() { # share FUNC: the % of the folded weight in stacks ending in FUNC
	awk -v f="$1" '{ n = $NF; t += n; k = $0; sub(/ [0-9]+$/, "", k)
		m = split(k, p, ";"); if (p[m] == f) s += n }
		END { if (t) printf "%.1f", 100 * s / t }' "$T/s.folded"
}
# A width is a share of the samples: within their binomial margin
# (lib.sh near_share).  On a loaded machine a phase also pays for time its
# CPU was taken away (see samples.sh): up to three recordings, each twice
# as long as the one before, the first whose three widths all match is
# the one checked.
shares_ok() {
	local n
	n=$(samples_n "$T/s.rep")
	near_share 10 "$(share burn10)" "$n" && near_share 30 "$(share burn30)" "$n" &&
		near_share 60 "$(share burn60)" "$n"
}
for try in 1 2 3; do
	if ! (cd "$T" && "$U" record -p nop -F 999 --call-graph fp -o s.dat -- ./kburn $((N << (try - 1))) \
		>/dev/null 2>rec.err); then
		grep -q "perf_event_open" "$T/rec.err" && unsupported "$(head -1 "$T/rec.err")"
		notok "record -F 999 --call-graph fp"
		sed 's/^/#   /' "$T/rec.err"
		exit 1
	fi
	"$U" dump --flame-graph -i "$T/s.dat" >"$T/s.folded" 2>"$T/s.err"
	"$U" report --samples -i "$T/s.dat" >"$T/s.rep" 2>&1
	shares_ok && break
done
check "dump --flame-graph of samples exits 0 ($(head -1 "$T/s.err"))" test -s "$T/s.folded"
check "folded stacks: callers first, then burn60 (the sampled chains)" \
	grep -q "^[^ ]*;burn60 [0-9][0-9]*$" "$T/s.folded"
total=$(awk '{ t += $NF } END { print t }' "$T/s.folded")
n=$(samples_n "$T/s.rep")
for f in 10 30 60; do
	got=$(share "burn$f")
	check "burn$f: $f% of the flame graph's width, within $(share_margin $f "$n") points (got ${got:-none}% of $n, run $try)" \
		near_share "$f" "$got" "$n"
done
count=$(grep -o '^# Event count (approx.): [0-9]*' "$T/s.rep" |
	awk '{ print $NF }')
check "the widths add up to the samples' periods ($total = $count)" test "$total" = "$count"
"$U" dump --flame-graph --svg -i "$T/s.dat" >"$T/s.svg" 2>&1
check "--svg draws the sampled frames" grep -q "<title>burn60 " "$T/s.svg"
check "--svg's tooltips count samples, not calls" grep -q "<title>burn60 ([0-9]* samples, " "$T/s.svg"
"$U" dump --flame-graph --svg --icicle -i "$T/s.dat" >"$T/i.svg" 2>&1
check "--svg --icicle too" grep -q "<title>burn30 " "$T/i.svg"
# Chrome JSON carries the samples ("samples" and "stackFrames"): their
# stacks and weights are the folded stacks'
"$U" dump --chrome -o "$T/s.json" -i "$T/s.dat" 2>"$T/s.json.err"
awk '/^"[0-9]+":\{"name":/ { id = $0; sub(/^"/, "", id); sub(/".*/, "", id)
	nm = $0; sub(/^[^:]*:\{"name":"/, "", nm); sub(/".*/, "", nm); name[id] = nm
	p = ""; if ($0 ~ /"parent":"/) { p = $0; sub(/.*"parent":"/, "", p); sub(/".*/, "", p) }
	parent[id] = p }
	/"name":"cpu-clock","sf":"/ { sf = $0; sub(/.*"sf":"/, "", sf); sub(/".*/, "", sf)
	w = $0; sub(/.*"weight":/, "", w); sub(/\}.*/, "", w); n++; ws[n] = w; sfs[n] = sf }
	END { for (i = 1; i <= n; i++) { s = ""; for (f = sfs[i]; f != ""; f = parent[f]) {
			if (!(f in name)) { print "BAD"; exit 1 } s = s == "" ? name[f] : name[f] ";" s }
		c[s] += ws[i] } for (s in c) print s, c[s] }' "$T/s.json" | sort >"$T/s.json.folded"
sort "$T/s.folded" >"$T/s.folded.sorted"
check "dump --chrome of samples: $n samples in \"samples\"" \
	test "$(grep -c '"name":"cpu-clock","sf":"' "$T/s.json")" = "$n"
check "their stacks (stackFrames) and weights are the folded stacks'" \
	cmp -s "$T/s.json.folded" "$T/s.folded.sorted"
# Perfetto carries them (tests/diff/perfetto.sh checks how); the raw
# event dump does not, and says how many it leaves out
"$U" dump --perfetto -o "$T/s.perfetto" -i "$T/s.dat" 2>"$T/s.perfetto.err"
check "dump --perfetto of a samples-only recording leaves nothing out ($(head -1 "$T/s.perfetto.err"))" \
	test -s "$T/s.perfetto" -a ! -s "$T/s.perfetto.err"
"$U" dump -i "$T/s.dat" >"$T/s.raw" 2>"$T/s.raw.err"
check "the raw dump of a samples-only recording says its $n samples are left out ($(head -1 "$T/s.raw.err"))" \
	grep -q "^utrace dump: $n samples (record -F) left out: the event dump carries no samples" "$T/s.raw.err"
"$U" convert -i "$T/s.dat" -o "$T/s.trace.dat" >"$T/s.conv" 2>&1
check "convert of a samples-only recording says its $n samples are left out" \
	grep -q "^utrace convert: $n samples (record -F) left out: trace.dat carries no samples" "$T/s.conv"

(cd "$T" && "$U" record -F 999 --call-graph fp -o both.dat -- ./kburn.u "$N" >/dev/null 2>&1)
"$U" dump --flame-graph -i "$T/both.dat" >"$T/def.folded" 2>&1
"$U" dump --flame-graph --source functions -i "$T/both.dat" >"$T/fn.folded" 2>&1
"$U" dump --flame-graph --source samples -i "$T/both.dat" >"$T/smp.folded" 2>&1
check "calls and samples: the default source is the functions" cmp -s "$T/def.folded" "$T/fn.folded"
check "the functions' stacks start at main (no libc frames)" grep -q "^main;burn60 " "$T/fn.folded"
# (sampled stacks of burn60 that go above main, into libc, where the
# functions' never do; not every one need: a frame-pointer walk may end
# at main, where libc's caller left no frame pointer to follow)
check "--source samples: the sampled stacks, not the functions'" \
	test -n "$(grep -v '^main;' "$T/smp.folded" | grep '^[^ ]*;burn60 [0-9]*$')"
"$U" dump --flame-graph --svg --source samples --diff "$T/s.dat" -i "$T/both.dat" >"$T/d.svg" \
	2>"$T/d.err"
check "--diff between two recordings' samples ($(head -1 "$T/d.err"))" grep -q "burn60" "$T/d.svg"

(cd "$T" && "$U" record -o none.dat -- ./kburn.u 1 >/dev/null 2>&1)
"$U" dump --flame-graph --source samples -i "$T/none.dat" >"$T/none.txt" 2>&1
rc=$?
check "--source samples without samples: exit 1, one line ($(head -1 "$T/none.txt"))" \
	test "$rc" -eq 1 -a "$(wc -l <"$T/none.txt")" -eq 1 -a -n "$(grep 'no samples' "$T/none.txt")"
"$U" dump --flame-graph --source perf -i "$T/s.dat" >"$T/bad.txt" 2>&1
rc=$?
check "a bad --source: exit 2, a usage error ($(head -1 "$T/bad.txt"))" test "$rc" -eq 2
"$U" dump --source samples -i "$T/s.dat" >"$T/bad2.txt" 2>&1
rc=$?
check "--source without --flame-graph: exit 2, a usage error ($(head -1 "$T/bad2.txt"))" test "$rc" -eq 2
exit 0

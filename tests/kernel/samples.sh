#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/samples.sh BUILD_DIR - sampling (utrace record -F) against
# the real kernel's perf_event_open:
#
#   - tests/kernel/kburn.c burns 10%, 30% and 60% of its CPU time in three
#     functions; utrace record -F 999 then utrace report --samples must
#     give each share within 4.5 binomial standard deviations of its
#     sample count (tests/kernel/lib.sh near_share; the first of up to
#     three runs, each twice as long as the one before, whose shares all
#     do), with the program's own file as the Shared Object, in perf
#     report's layout (the same header lines and columns as perf report
#     --stdio, when perf is installed)
#   - the same with the function records (built with utrace cflags, the
#     default function_graph tracer): one file holds both, the report of
#     the calls is unchanged, and burn30's share is the one the same
#     binary has sampled without a tracer
#   - --call-graph fp records, --sort and a bad --sort key, a recording
#     without samples
# (user space only, -e cpu-clock:u: the shares are the program's own;
# tests/kernel/samples_kernel.sh has the kernel's)
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
share() { # share FILE FUNC: the overhead of FUNC, without the %
	awk -v f="[.] $2" 'index($0, f) && $1 ~ /%$/ { sub(/%/, "", $1); print $1; exit }' "$1"
}
shares_ok() { # shares_ok FILE FUNC...: each burnN's share is N% of the samples
	local file=$1 f n
	n=$(samples_n "$file")
	shift
	for f; do near_share "${f#burn}" "$(share "$file" "$f")" "$n" || return 1; done
}
# A share is the program's CPU time, a statistic of the samples; on a
# loaded (virtual) machine a phase also pays for time its CPU was taken
# away, in bursts that a longer run averages out.  Up to three runs are
# made, each twice as long as the one before, the first whose shares all
# match is the test (a wrong attribution fails all three); the checks
# show the last run's figures.
runs() { # runs TRY: kburn's N for run TRY
	echo $((N << ($1 - 1)))
}
for try in 1 2 3; do
	if ! (cd "$T" && "$U" record -p nop -F 999 -e cpu-clock:u -o s.dat -- ./kburn "$(runs $try)" >/dev/null 2>rec.err); then
		grep -q "perf_event_open" "$T/rec.err" && unsupported "$(head -1 "$T/rec.err")"
		notok "record -F 999"
		sed 's/^/#   /' "$T/rec.err"
		exit 1
	fi
	"$U" report --samples -i "$T/s.dat" >"$T/rep.txt" 2>"$T/rep.err"
	shares_ok "$T/rep.txt" burn10 burn30 burn60 && break
done
ok "record -F 999 runs the program"
grep -q "samples at 999 Hz (0 lost)" "$T/rec.err" && ok "record says how many samples, none lost" ||
	notok "record says how many samples, none lost: $(cat "$T/rec.err")"
check "report --samples exits 0" test -s "$T/rep.txt"
n=$(samples_n "$T/rep.txt")
for f in 10 30 60; do
	got=$(share "$T/rep.txt" "burn$f")
	check "burn$f: $f% of the samples within $(share_margin $f "$n") points (got ${got:-none}% of $n, run $try)" \
		near_share "$f" "$got" "$n"
done
grep -q "^  *[0-9.]*%  kburn  *kburn  *\[\.\] burn60$" "$T/rep.txt" &&
	ok "the program's own file is the Shared Object" ||
	notok "the program's own file is the Shared Object"
check "-e cpu-clock:u: the event is cpu-clock, user only" grep -q "^# Samples: .* of event 'cpu-clock:u'$" "$T/rep.txt"
if command -v perf >/dev/null; then
	perf record -e cpu-clock:u -F 999 -o "$T/perf.data" "$T/kburn" "$N" >/dev/null 2>&1
	# the widths follow the values (which functions got a sample): compare
	# the names and the groups of dots
	norm() { grep '^# Overhead\|^# \.\.\.\|^# Total Lost\|^# Samples' | sed 's/ *$//; s/  */ /g; s/\.\.*/./g; s/: [0-9][0-9]*[ KM]* of/: N of/; s/cpu-clock[:a-z]*/cpu-clock/'; }
	perf report --stdio --no-children -i "$T/perf.data" 2>/dev/null | norm >"$T/perf.head"
	norm <"$T/rep.txt" >"$T/utrace.head"
	check "the header lines are perf report's" cmp -s "$T/perf.head" "$T/utrace.head"
	got=$(perf report --stdio --no-children -i "$T/perf.data" 2>/dev/null |
		awk '/\[\.\] burn60$/ { sub(/%/, "", $1); print $1; exit }')
	n=$(perf report --stdio --no-children -i "$T/perf.data" 2>/dev/null | samples_n /dev/stdin)
	check "perf report agrees on burn60 (perf ${got:-none}% of $n)" near_share 60 "$got" "$n"
fi

# samples and function records in one file: tracing the functions must
# not move the samples.  The reference is the same binary sampled without
# a tracer in the same try: its loops' speeds depend on their alignment,
# which utrace's cflags change (on some machines burn30 takes 25% of
# kburn.u, traced or not).  Two shares measured, so a margin of 4.5
# sigma of their difference (6.4 of one).
for try in 1 2 3; do
	(cd "$T" && "$U" record -p nop -F 999 -e cpu-clock:u --call-graph fp -o nopu.dat -- ./kburn.u "$(runs $try)" >/dev/null 2>&1)
	(cd "$T" && "$U" record -F 999 -e cpu-clock:u --call-graph fp -o both.dat -- ./kburn.u "$(runs $try)" >/dev/null 2>both.err)
	"$U" report --samples -i "$T/nopu.dat" >"$T/nopu.txt" 2>&1
	"$U" report --samples -i "$T/both.dat" >"$T/both.txt" 2>&1
	want=$(share "$T/nopu.txt" burn30)
	got=$(share "$T/both.txt" burn30)
	n=$(samples_n "$T/both.txt")
	near_share "${want:-30}" "$got" "$n" 6.4 && break
done
check "traced and sampled at once: burn30 as without a tracer (${want:-none}%) within $(share_margin "${want:-30}" "$n" 6.4) points (got ${got:-none}% of $n, run $try)" \
	near_share "${want:-none}" "$got" "$n" 6.4
calls=$("$U" report -i "$T/both.dat" 2>/dev/null | grep -c 'burn60();')
check "the same file holds the calls: 20 calls of burn60 (got $calls)" test "$calls" -eq 20
"$U" report --samples --sort sym,comm -i "$T/both.dat" >"$T/sort.txt" 2>&1
check "--sort sym,comm orders the columns" grep -q '^# Overhead  Symbol  *Command$' "$T/sort.txt"
"$U" report --samples --sort sym,nosuch -i "$T/both.dat" >"$T/bad.txt" 2>&1
rc=$?
check "a bad --sort key: exit 2 and the column ($(head -1 "$T/bad.txt"))" \
	grep -q "unknown key 'nosuch' at column 5" "$T/bad.txt"
test "$rc" -eq 2 || notok "a bad --sort key exits 2, a usage error (got $rc)"
# -P PID -F: a process sampled from the middle of its life, its files and
# threads named from /proc (no exec to see them at)
"$T/kburn" 20000000 >/dev/null &
KP=$!
sleep 0.3
"$U" record -P "$KP" -p nop -F 999 --duration 1.5 -o "$T/p.dat" >/dev/null 2>"$T/p.err"
rc=$?
kill "$KP" 2>/dev/null
wait "$KP" 2>/dev/null
check "record -P PID -F 999 samples a running process (exit $rc: $(tail -1 "$T/p.err"))" \
	test "$rc" -eq 0 -a -n "$(grep 'samples at 999 Hz' "$T/p.err")"
"$U" report --samples -i "$T/p.dat" >"$T/p.txt" 2>&1
p10=$(share "$T/p.txt" burn10) p30=$(share "$T/p.txt" burn30) p60=$(share "$T/p.txt" burn60)
check "its functions are named, by its command and file (burn10 $p10%, burn30 $p30%, burn60 $p60%)" \
	grep -q "^  *[0-9.]*%  kburn  *kburn  *\[\.\] burn60$" "$T/p.txt"
check "in their shares' order" awk -v a="${p10:-0}" -v b="${p30:-0}" -v c="${p60:-0}" \
	'BEGIN { exit !(a > 0 && a < b && b < c) }'
(cd "$T" && "$U" record -p nop -o none.dat -- ./kburn 1 >/dev/null 2>&1)
"$U" report --samples -i "$T/none.dat" >"$T/none.txt" 2>&1
rc=$?
check "no samples: exit 1 and says so" test "$rc" -eq 1 -a -n "$(grep 'no samples' "$T/none.txt")"
exit 0

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/hist.sh [BUILD_DIR]   (BUILD_DIR defaults to build)
#
# What a hist trigger costs per event, utrace against bpftrace, in the same
# run, on the same program (bench/hist_loop.c: hit(i % 64) in a loop, hit()
# fires the tracepoint bench:bench_two with a = the key, b = 1):
#
#   baseline   the program alone (the tracepoint is a NOP)
#   utrace     utrace record -p nop -v -e bench:bench_two -R 'hist:keys=a:vals=b'
#              (the event soft-enabled: no record written, only the table)
#   bpftrace   bpftrace -e 'uprobe:PROG:hit { @[arg0] = count(); }'
#
# The program times its own loop (ns/event, wall and thread CPU), so
# start-up and the tracers' set-up are not counted; "added" is the
# difference from the baseline.  The counts are checked too: utrace's hist
# (utrace report --hist) and bpftrace's map must each say N/64 for every
# key, and the table says how many hits it counted.
#
# Knobs: HIST_RUNS (5, interleaved rounds, median reported), HIST_N (utrace
# and baseline, 20000000), HIST_N_BPF (bpftrace, 1000000: a uprobe costs
# microseconds), CC (gcc).  Needs root and bpftrace for the bpftrace case
# (skipped otherwise).  Timings are never pass/fail.
. "$(dirname "$0")/lib.sh"
RUNS=${HIST_RUNS:-5}
N=${HIST_N:-20000000}
NB=${HIST_N_BPF:-1000000}
bench_tmp

"$CC" -std=gnu11 -O2 -Wall -Wextra -I"$ROOT/include" -I"$ROOT/bench" "$ROOT/bench/hist_loop.c" \
	-o "$OUT/hist_loop" || die "cannot build bench/hist_loop.c"
HAVE_BPF=0
if command -v bpftrace >/dev/null && [ "$(id -u)" = 0 ]; then
	HAVE_BPF=1
else
	echo "hist.sh: bpftrace not installed or not root: the bpftrace case is skipped" >&2
fi

nsev() { sed -n 's/.* ns\/event=\([0-9.]*\) cpu_ns\/event=\([0-9.]*\).*/\1 \2/p' "$1"; }

# "KEY COUNT" lines -> "exact" if each of the 64 keys has the hits the
# loops gave it (the warm-up's n/100 iterations, then n), else what is wrong
check_counts() { # file n
	awk -v n="$2" 'function hits(m, k) { return int(m / 64) + (k < m % 64) }
		{ seen++; want = hits(n, $1) + hits(int(n / 100), $1); if ($2 != want) bad = bad " " $1 "=" $2 "/" want }
		END { if (seen != 64) print "keys:" seen + 0; else if (bad != "") print "wrong:" bad; else print "exact" }' "$1"
}

run_base() {
	"$OUT/hist_loop" "$N" >"$OUT/base.out" && echo "baseline $(nsev "$OUT/base.out")" >>"$OUT/times"
}

run_utrace() {
	"$U" record -p nop -o "$OUT/h.dat" -v -e bench:bench_two -R 'hist:keys=a:vals=b' \
		-- "$OUT/hist_loop" "$N" >"$OUT/u.out" 2>"$OUT/u.err" || { cat "$OUT/u.err" >&2; return; }
	echo "utrace $(nsev "$OUT/u.out")" >>"$OUT/times"
	# { a:         12 } hitcount:     312500  b:     312500
	"$U" report --hist -i "$OUT/h.dat" 2>/dev/null |
		sed -n 's/^{ a: *\([0-9]*\) } hitcount: *\([0-9]*\).*/\1 \2/p' >"$OUT/u.counts"
	echo "utrace $(check_counts "$OUT/u.counts" "$N")" >>"$OUT/counts"
}

run_bpf() {
	bpftrace -e "uprobe:$OUT/hist_loop:hit { @[arg0] = count(); }" -c "$OUT/hist_loop $NB" \
		>"$OUT/b.out" 2>"$OUT/b.err" || { cat "$OUT/b.err" >&2; return; }
	echo "bpftrace $(nsev "$OUT/b.out")" >>"$OUT/times"
	sed -n 's/^@\[\([0-9]*\)\]: \([0-9]*\)$/\1 \2/p' "$OUT/b.out" >"$OUT/b.counts"
	echo "bpftrace $(check_counts "$OUT/b.counts" "$NB")" >>"$OUT/counts"
}

for _ in $(seq "$RUNS"); do
	run_base
	run_utrace
	[ "$HAVE_BPF" = 1 ] && run_bpf
done

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
col() { awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$OUT/times" | median; }

base=$(col baseline 2)
echo "hist trigger cost per event (bench/hist.sh, $RUNS rounds, median; n=$N, bpftrace n=$NB)"
printf '%-10s %12s %12s %14s %12s\n' case ns/event cpu_ns/event added_ns/event counts
for c in baseline utrace bpftrace; do
	w=$(col $c 2)
	[ -n "$w" ] || continue
	cpu=$(col $c 3)
	added=$(awk -v w="$w" -v b="$base" 'BEGIN { printf "%.2f", w - b }')
	cnt=$(awk -v c="$c" '$1 == c { $1 = ""; print substr($0, 2) }' "$OUT/counts" | sort | uniq -c |
		awk '{ $1 = $1 "x"; print }' | tr '\n' ' ')
	printf '%-10s %12.2f %12.2f %14s %12s\n' "$c" "$w" "$cpu" "$added" "${cnt:--}"
done
u=$(col utrace 2)
b=$(col bpftrace 2)
if [ -n "$u" ] && [ -n "$b" ]; then
	awk -v u="$u" -v b="$b" -v base="$base" \
		'BEGIN { printf "bpftrace / utrace, added cost per event: %.1fx\n", (b - base) / (u - base) }'
	# thread CPU time counts the uprobe's trap too (it runs in the
	# thread's context) and is steadier than wall time on a busy machine
	awk -v u="$(col utrace 3)" -v b="$(col bpftrace 3)" -v base="$(col baseline 3)" \
		'BEGIN { printf "bpftrace / utrace, added CPU per event: %.1fx\n", (b - base) / (u - base) }'
fi
bench_floors

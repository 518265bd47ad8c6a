#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/hotpaths.sh [BUILD_DIR] - every hot path of the runtime against its
# floor on this machine, in one run (issue 25):
#
#   path             figure (added CPU ns an event, over the untraced run)     floor
#   function         fib(FIB_N) under -p function, the program's user time     rdtsc + 12 B record
#   function_graph   fib(FIB_N) under function_graph                           2 rdtsc + 2 x 4 B
#   tracepoint       bench/tracepoint_utrace.c, -e bench:bench_two (2 ints)    rdtsc + 20 B
#   probe hit        bench/probe_loop.c, 'p:e hit a=%di:u64 b=+8(%si):u32'     rdtsc + 32 B
#   probe mid        the same probe on hit+OFF (a jmp to a detour, mid-function) rdtsc + 32 B
#                    (each record streamed into a drained ring, see below)
#   bt action        utrace bt 'uprobe:PROG:hit { @c[arg0] = count();           two bt map updates
#                    @h = hist(arg0); }' on probe_loop.c (no clock, no record)
#   hist trigger     bench/hist_loop.c, -v -R 'hist:keys=a:vals=b'             a hash table update:
#                                                                              a plain one, and the
#                                                                              hist table's own
#
# The floors come from bench/floors.c in the same run: what the machine
# must do for such an event at the least (a probe's two fetches are loads
# of lines the program just touched, under a nanosecond, not counted).
# The hist trigger has two floors, both printed: a plain open-addressing
# update of a 64-key array (multiplicative hash, no concurrency), and the
# same update in the lock-free table every hist trigger fills
# (common/hist_map.h: jhash, acquire loads, the thread's stripe), which a
# trigger cannot go below without changing the table.
# A path that writes records has two floors too: its record written into
# a buffer that stays in this CPU's caches (bench/floors.c wN, the column
# "cache-resident"), and streamed into a 16 MiB ring of 16 KiB sub-buffers
# that a thread on the other CPU drains as the recorder does (sN: each new
# line was last read there), the floor of any record's write on a traced
# thread; the ratio uses the streamed one (function_graph's two 4-byte
# records: 2 x s4).
# The ratio is figure / floor; the goal is 1.3.  The function tracers'
# figure is the traced program's own user time (`/usr/bin/time -f %U`)
# over fib's 2*fib(N+1)-1 calls, less the untraced run's; the others time
# their own loop (thread CPU a event, bench/tracepoint.sh, probe.sh,
# hist.sh).  Each case runs HOT_RUNS times (default 3), interleaved; the
# medians are printed.  Timings are never pass/fail.
#
# Knobs: HOT_RUNS (3), FIB_N (32), HOT_N (events of the other loops,
# 5000000), CC (gcc).
. "$(dirname "$0")/lib.sh"
RUNS=${HOT_RUNS:-3}
FN=${FIB_N:-32}
N=${HOT_N:-5000000}
bench_tmp
[ -x /usr/bin/time ] || die "/usr/bin/time is not installed (apt-get install time)"

CF=(-std=gnu11 -O2 -Wall -Wextra)
# shellcheck disable=SC2046 # the flags are a word list
"$CC" "${CF[@]}" $("$U" cflags) -o "$OUT/fib" "$ROOT/bench/fib.c" || die "cannot build fib.c"
"$CC" "${CF[@]}" -I"$ROOT/include" -I"$ROOT/bench" "$ROOT/bench/tracepoint_utrace.c" \
	-o "$OUT/tp" || die "cannot build tracepoint_utrace.c"
# shellcheck disable=SC2046
"$CC" "${CF[@]}" $("$U" cflags) -I"$ROOT/bench" "$ROOT/bench/probe_loop.c" -o "$OUT/probe" ||
	die "cannot build probe_loop.c"
"$CC" "${CF[@]}" -I"$ROOT/include" -I"$ROOT/bench" "$ROOT/bench/hist_loop.c" -o "$OUT/hist" ||
	die "cannot build hist_loop.c"
# the first instruction after hit's call site (as bench/probe.sh finds it)
MID=$(objdump -d --no-show-raw-insn "$OUT/probe" | awk '
	$2 == "<hit>:" { on = 1; base = strtonum("0x" $1); next }
	on && /^$/ { exit }
	on && /^ *[0-9a-f]+:/ { a = $1; sub(":", "", a); o = strtonum("0x" a) - base
		if ($2 == "endbr64") skip = 4; else if (o >= skip + 5) { print o; exit } }')
[ -n "$MID" ] || die "cannot find an instruction after hit's call site"
BTPROG="uprobe:$OUT/probe:hit { @c[arg0] = count(); @h = hist(arg0); }"
calls=$(awk -v n="$FN" 'BEGIN { a = 0; b = 1; for (i = 0; i < n + 1; i++) { t = a + b; a = b; b = t }
	print 2 * a - 1 }')

# each case appends "case cpu_ns/event" to $OUT/times
nsev() { sed -n 's/.* cpu_ns\/event=\([0-9.]*\).*/\1/p' "$1"; }
fib_user() { # fib_user CASE [TRACER]: the user seconds of fib alone
	if [ $# = 1 ]; then
		/usr/bin/time -f %U -o "$OUT/t" "$OUT/fib" "$FN" >/dev/null
	else
		"$U" record -p "$2" -o "$OUT/f.dat" -- /usr/bin/time -f %U -o "$OUT/t" "$OUT/fib" "$FN" \
			>/dev/null 2>"$OUT/err" || die "record -p $2 failed: $(tail -2 "$OUT/err")"
		grep -q ' (0 lost)' "$OUT/err" || echo "hotpaths.sh: $2 lost records: $(tail -1 "$OUT/err")" >&2
	fi
	echo "$1 $(awk -v s="$(cat "$OUT/t")" -v c="$calls" 'BEGIN { printf "%.3f", s * 1e9 / c }')" \
		>>"$OUT/times"
}
loop() { # loop CASE PROG [utrace record options... | bt PROGRAM]: the program's own cpu_ns/event
	local c=$1 p=$2
	shift 2
	if [ $# = 0 ]; then
		"$p" "$N" >"$OUT/o" || die "$p failed"
	elif [ "$1" = bt ]; then
		"$U" bt -o "$OUT/bt.txt" -e "$2" -c "$p $N" >"$OUT/o" 2>"$OUT/err" ||
			die "$c failed: $(tail -2 "$OUT/err")"
	else
		"$U" record -o "$OUT/l.dat" "$@" -- "$p" "$N" >"$OUT/o" 2>"$OUT/err" ||
			die "$c failed: $(tail -2 "$OUT/err")"
	fi
	echo "$c $(nsev "$OUT/o")" >>"$OUT/times"
}

for _ in $(seq "$RUNS"); do
	fib_user fib-plain
	fib_user function function
	fib_user function_graph function_graph
	loop tp-plain "$OUT/tp"
	loop tracepoint "$OUT/tp" -p nop -e bench:bench_two
	loop probe-plain "$OUT/probe"
	loop probe "$OUT/probe" -p nop --probe 'p:e hit a=%di:u64 b=+8(%si):u32'
	loop probe-mid "$OUT/probe" -p nop --probe "p:m hit+$MID a=%di:u64 b=+8(%si):u32"
	loop bt "$OUT/probe" bt "$BTPROG"
	loop hist-plain "$OUT/hist"
	loop hist "$OUT/hist" -p nop -v -e bench:bench_two -R 'hist:keys=a:vals=b'
done
FLOORS=$(FLOORS_ROUNDS=5 bash "$ROOT/bench/floors.sh" -v) || die "floors not measured"
# shellcheck disable=SC2086 # key=value words
eval $FLOORS

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
col() { awk -v c="$1" '$1 == c { print $2 }' "$OUT/times" | median; }
ratio() { awk -v f="$1" -v l="$2" 'BEGIN { printf "%.2f", (l > 0 ? f / l : 0) }'; } # ratio FIG FLOOR
row() { # row PATH CASE BASE FLOOR-NS FLOOR-TEXT [CACHE-RESIDENT-FLOOR-NS]
	local fig
	fig=$(awk -v a="$(col "$2")" -v b="$(col "$3")" 'BEGIN { printf "%.2f", a - b }')
	printf '| %s | %s | %s (%s) | %s | %s |\n' "$1" "$fig" "$4" "$5" "$(ratio "$fig" "$4")" \
		"$([ -n "${6:-}" ] && echo "$6 ($(ratio "$fig" "$6"))" || echo -)"
}
fl() { awk "BEGIN { printf \"%.2f\", $1 }"; }

echo "hot paths against their floors (bench/hotpaths.sh, $RUNS rounds, medians; fib($FN) = $calls calls, loops n=$N)"
echo
echo "| path | added CPU ns an event | floor ns (the ratio's) | ratio | floor with the record cache-resident (ratio) |"
echo "|---|---|---|---|---|"
row function function fib-plain "$(fl "$rdtsc + $s12")" "rdtsc + 12 B streamed" "$(fl "$rdtsc + $w12")"
row function_graph function_graph fib-plain "$(fl "2 * $rdtsc + 2 * $s4")" \
	"2 rdtsc + 2 x 4 B streamed" "$(fl "2 * $rdtsc + 2 * $w4")"
row "enabled tracepoint (2 ints)" tracepoint tp-plain "$(fl "$rdtsc + $s20")" "rdtsc + 20 B streamed" \
	"$(fl "$rdtsc + $w20")"
row "probe hit (entry, 2 fetch-args)" probe probe-plain "$(fl "$rdtsc + $s32")" "rdtsc + 32 B streamed" \
	"$(fl "$rdtsc + $w32")"
row "probe hit (mid-function, 2 fetch-args)" probe-mid probe-plain "$(fl "$rdtsc + $s32")" \
	"rdtsc + 32 B streamed" "$(fl "$rdtsc + $w32")"
row "bt uprobe, count() and hist() of arg0" bt probe-plain "$(fl "2 * $btmap")" "2 bt map updates, no clock"
row "hist trigger (1 key, 1 value)" hist hist-plain "$(fl "$tbl")" "plain table update, no clock"
row "hist trigger, against its own table" hist hist-plain "$(fl "$hmap")" "hist_map.h update, no clock"
echo
echo "untraced, CPU ns an event: fib $(col fib-plain) (a call), tracepoint loop $(col tp-plain), probe loop $(col probe-plain), hist loop $(col hist-plain)"
echo "floors, same run (CPU ns): $FLOORS"
printf 'machine: %s CPUs, %s, load %s\n' "$(nproc)" \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(cut -d' ' -f1-3 /proc/loadavg)"

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
# The floors come from bench/floors.c in the same round: what the machine
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
# hist.sh).  Each case runs HOT_RUNS times (default 3), interleaved, and
# each round measures the floors again after its cases: a round's ratio
# is its figure over its own floor (a path on this VM moves by up to half
# from one minute to the next, and a floor with it).  Printed: the
# medians of the figures, of the floors and of the rounds' ratios, and
# the rounds' ratios' range.  Timings are never pass/fail.
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
	echo "$ROUND $1 $(awk -v s="$(cat "$OUT/t")" -v c="$calls" 'BEGIN { printf "%.3f", s * 1e9 / c }')" \
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
	echo "$ROUND $c $(nsev "$OUT/o")" >>"$OUT/times"
}

for ROUND in $(seq "$RUNS"); do
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
	# this round's floors, so that each figure is read against the floor
	# of its own minute (this VM moves a path by up to half in a minute)
	echo "$ROUND $(FLOORS_ROUNDS=3 bash "$ROOT/bench/floors.sh" -v)" >>"$OUT/floors" ||
		die "floors not measured"
done

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# rounds: per round "figure floor" of a path, its figure CASE less BASE
# and its floor the expression EXPR of that round's floors (rdtsc + s12)
rounds() { # rounds CASE BASE EXPR
	local r fl
	for r in $(seq "$RUNS"); do
		fl=$(awk -v r="$r" '$1 == r { $1 = ""; print }' "$OUT/floors")
		awk -v r="$r" -v c="$1" -v b="$2" -v fl="$fl" -v e="$3" '
			$1 == r && $2 == c { fig = $3 } $1 == r && $2 == b { base = $3 }
			END { n = split(fl, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, "="); f[p[1]] = p[2] }
				# EXPR: "k", "k + k", "2 * k + 2 * k": terms of an optional factor
				m = split(e, t, " [+] "); sum = 0
				for (i = 1; i <= m; i++) { if (split(t[i], q, " [*] ") == 2) sum += q[1] * f[q[2]]; else sum += f[t[i]] }
				printf "%.3f %.3f\n", fig - base, sum }' "$OUT/times"
	done
}
row() { # row PATH CASE BASE FLOOR-EXPR FLOOR-TEXT [CACHE-RESIDENT-FLOOR-EXPR]
	local rs cr fig floor ratio range cache=-
	rs=$(rounds "$2" "$3" "$4")
	fig=$(awk '{ print $1 }' <<<"$rs" | median)
	floor=$(awk '{ print $2 }' <<<"$rs" | median)
	ratio=$(awk '{ printf "%.3f\n", ($2 > 0 ? $1 / $2 : 0) }' <<<"$rs" | median)
	range=$(awk '{ r = ($2 > 0 ? $1 / $2 : 0); if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r }
		END { printf "%.2f-%.2f", lo, hi }' <<<"$rs")
	if [ -n "${6:-}" ]; then
		cr=$(rounds "$2" "$3" "$6")
		cache="$(awk '{ print $2 }' <<<"$cr" | median | xargs printf '%.2f') ($(awk '{ printf "%.3f\n", ($2 > 0 ? $1 / $2 : 0) }' <<<"$cr" |
			median | xargs printf '%.2f'))"
	fi
	printf '| %s | %.2f | %.2f (%s) | %.2f | %s | %s |\n' "$1" "$fig" "$floor" "$5" "$ratio" "$range" "$cache"
}
col() { awk -v c="$1" '$2 == c { print $3 }' "$OUT/times" | median; }

echo "hot paths against their floors (bench/hotpaths.sh, $RUNS rounds, medians; fib($FN) = $calls calls, loops n=$N)"
echo
echo "| path | added CPU ns an event | floor ns (the ratio's) | ratio | ratio's rounds | floor with the record cache-resident (ratio) |"
echo "|---|---|---|---|---|---|"
row function function fib-plain "rdtsc + s12" "rdtsc + 12 B streamed" "rdtsc + w12"
row function_graph function_graph fib-plain "2 * rdtsc + 2 * s4" "2 rdtsc + 2 x 4 B streamed" \
	"2 * rdtsc + 2 * w4"
row "enabled tracepoint (2 ints)" tracepoint tp-plain "rdtsc + s20" "rdtsc + 20 B streamed" "rdtsc + w20"
row "probe hit (entry, 2 fetch-args)" probe probe-plain "rdtsc + s32" "rdtsc + 32 B streamed" "rdtsc + w32"
row "probe hit (mid-function, 2 fetch-args)" probe-mid probe-plain "rdtsc + s32" \
	"rdtsc + 32 B streamed" "rdtsc + w32"
row "bt uprobe, count() and hist() of arg0" bt probe-plain "2 * btmap" "2 bt map updates, no clock"
row "hist trigger (1 key, 1 value)" hist hist-plain "tbl" "plain table update, no clock"
row "hist trigger, against its own table" hist hist-plain "hmap" "hist_map.h update, no clock"
echo
echo "untraced, CPU ns an event: fib $(col fib-plain) (a call), tracepoint loop $(col tp-plain), probe loop $(col probe-plain), hist loop $(col hist-plain)"
echo "floors, each round (CPU ns):"
sed 's/^/  round /' "$OUT/floors"
printf 'machine: %s CPUs, %s, load %s\n' "$(nproc)" \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(cut -d' ' -f1-3 /proc/loadavg)"

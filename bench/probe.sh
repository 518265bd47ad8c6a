#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/probe.sh [BUILD_DIR]   (BUILD_DIR defaults to build)
#
# What one dynamic probe hit costs, the same probe with two fetch-args
# (a=%di:u64 b=+8(%si):u32) on the same program (bench/probe_loop.c: hit(key,
# &objs[key]) in a loop), in the same run:
#
#   baseline       the program alone (built with utrace cflags: hit's call
#                  site is a NOP)
#   utrace entry   utrace record -p nop --probe 'p:e hit ARGS'      (the call site)
#   utrace mid     utrace record -p nop --probe 'p:m hit+OFF ARGS'  (OFF: the
#                  instruction after the site; a jmp to a detour)
#   kernel uprobe  utrace record -p nop --probe 'p:k PROG:hit ARGS' (uprobe_events)
#   bpftrace       bpftrace -e 'uprobe:PROG:hit { @[arg0, *(uint32 *)(arg1 + 8)] = count(); }'
#   baseline-mt    bench/probe_loop_mt.c alone: 4 threads, hit() in a library
#                  dlopen'ed once they exist
#   mid-mt         the mid probe on it: installed in a process with five
#                  threads, an int3 the runtime turns into a jmp while they
#                  run (runtime/inproc_probe_opt.c); the threads warm up until
#                  it is a jmp (the program reads hit+OFF), so the timed
#                  loop measures the jmp; "jmp" in the counts column says
#                  the runtime reported it (UTRACE_KPROBE_DEBUG=1)
#
# The program times its own loop (wall and thread CPU per event, system
# time included, so a trap counts), so start-up and the tracers' set-up are
# not counted; "added" is the CPU time over the baseline.  Every case's
# hit count is checked: utrace's and the kernel's records, bpftrace's map,
# must each hold N + N/100 hits (the loop and its warm-up), for mid-mt
# 4 N and the warm-up hits the program reports; their figures are per hit of one thread, their added
# CPU is over baseline-mt.
#
# Knobs: PROBE_RUNS (3, interleaved rounds, median reported), PROBE_N
# (utrace and baseline, 2000000), PROBE_N_TRAP (kernel and bpftrace:
# 200000, a trap costs microseconds), PROBE_N_MT (per thread, 4000000:
# fewer hits leave the first touch of each thread's 16 MiB buffer in the
# figure, about 10-20 ns a hit at 500000),
# CC (gcc).  The kernel and bpftrace
# cases need root (skipped otherwise).  Timings are never pass/fail.
. "$(dirname "$0")/lib.sh"
RUNS=${PROBE_RUNS:-3}
N=${PROBE_N:-2000000}
NT=${PROBE_N_TRAP:-200000}
NM=${PROBE_N_MT:-4000000}
bench_tmp

P=$OUT/probe_loop
"$CC" -std=gnu11 -O2 $("$U" cflags) -I"$ROOT/bench" "$ROOT/bench/probe_loop.c" -o "$P" ||
	die "cannot build bench/probe_loop.c"
# the first instruction after hit's call site (5 bytes, after an endbr64 if any)
MID=$(objdump -d --no-show-raw-insn "$P" | awk '
	$2 == "<hit>:" { on = 1; base = strtonum("0x" $1); next }
	on && /^$/ { exit }
	on && /^ *[0-9a-f]+:/ { a = $1; sub(":", "", a); o = strtonum("0x" a) - base
		if ($2 == "endbr64") skip = 4; else if (o >= skip + 5) { print o; exit } }')
[ -n "$MID" ] || die "cannot find an instruction after hit's call site"
PM=$OUT/probe_loop_mt
"$CC" -std=gnu11 -O2 $("$U" cflags) -fPIC -shared -DPROBE_LIB "$ROOT/bench/probe_loop_mt.c" \
	-o "$OUT/libprobe_mt.so" && "$CC" -std=gnu11 -O2 "$ROOT/bench/probe_loop_mt.c" -o "$PM" -pthread -ldl ||
	die "cannot build bench/probe_loop_mt.c"
MIDL=$(objdump -d --no-show-raw-insn "$OUT/libprobe_mt.so" | awk '
	$2 == "<hit>:" { on = 1; base = strtonum("0x" $1); next }
	on && /^$/ { exit }
	on && /^ *[0-9a-f]+:/ { a = $1; sub(":", "", a); o = strtonum("0x" a) - base
		if ($2 == "endbr64") skip = 4; else if (o >= skip + 5) { print o; exit } }')
[ -n "$MIDL" ] || die "cannot find an instruction after hit's call site in libprobe_mt.so"
ARGS='a=%di:u64 b=+8(%si):u32'
ROOTOK=0
[ "$(id -u)" = 0 ] && ROOTOK=1
HAVE_BPF=0
[ "$ROOTOK" = 1 ] && command -v bpftrace >/dev/null && HAVE_BPF=1
[ "$ROOTOK" = 1 ] || echo "probe.sh: not root: the kernel uprobe and bpftrace cases are skipped" >&2

nsev() { sed -n 's/.* ns\/event=\([0-9.]*\) cpu_ns\/event=\([0-9.]*\).*/\1 \2/p' "$1"; }
want() { echo $(($1 + $1 / 100)); }
verdict() { [ "$2" = "$(want "$1")" ] && echo exact || echo "wrong:$2/$(want "$1")"; }

run_base() {
	"$P" "$N" >"$OUT/base.out" && echo "baseline $(nsev "$OUT/base.out")" >>"$OUT/times"
}

run_utrace() { # case probe-definition
	"$U" record -p nop -o "$OUT/u.dat" --probe "$2" -- "$P" "$N" >"$OUT/u.out" 2>"$OUT/u.err" ||
		{ cat "$OUT/u.err" >&2; return; }
	echo "$1 $(nsev "$OUT/u.out")" >>"$OUT/times"
	echo "$1 $(verdict "$N" "$(sed -n 's/^utrace record: \([0-9]*\) records.*/\1/p' "$OUT/u.err")")" >>"$OUT/counts"
}

run_mt() { # [probe-definition]: baseline-mt without one
	if [ $# = 0 ]; then
		"$PM" "$NM" >"$OUT/bm.out" && echo "baseline-mt $(nsev "$OUT/bm.out")" >>"$OUT/times"
		return
	fi
	UTRACE_KPROBE_DEBUG=1 "$U" record -p nop -o "$OUT/m.dat" --probe "$1" -- "$PM" "$NM" "$MIDL" \
		>"$OUT/m.out" 2>"$OUT/m.err" || { cat "$OUT/m.err" >&2; return; }
	local got warm
	got=$(sed -n 's/^utrace record: \([0-9]*\) records.*/\1/p' "$OUT/m.err")
	warm=$(sed -n 's/.* warmup=\([0-9]*\).*/\1/p' "$OUT/m.out")
	echo "mid-mt $(nsev "$OUT/m.out")" >>"$OUT/times"
	echo "mid-mt $([ "$got" = $((4 * NM + warm)) ] && echo exact || echo "wrong:$got/$((4 * NM + warm))")$(
		grep -q 'kprobes: [1-9][0-9]* jump-optimised' "$OUT/m.err" && echo ,jmp)" >>"$OUT/counts"
}

run_kernel() {
	"$U" record -p nop -o "$OUT/k.dat" --probe "p:utrace_bench/k $P:hit $ARGS" -- "$P" "$NT" \
		>"$OUT/k.out" 2>"$OUT/k.err" || { cat "$OUT/k.err" >&2; return; }
	echo "kernel $(nsev "$OUT/k.out")" >>"$OUT/times"
	echo "kernel $(verdict "$NT" "$("$U" report -i "$OUT/k.dat" 2>/dev/null | grep -c ' k: ')")" >>"$OUT/counts"
}

run_bpf() {
	bpftrace -e "uprobe:$P:hit { @[arg0, *(uint32 *)(arg1 + 8)] = count(); }" -c "$P $NT" \
		>"$OUT/b.out" 2>"$OUT/b.err" || { cat "$OUT/b.err" >&2; return; }
	echo "bpftrace $(nsev "$OUT/b.out")" >>"$OUT/times"
	echo "bpftrace $(verdict "$NT" "$(sed -n 's/^@\[.*\]: \([0-9]*\)$/\1/p' "$OUT/b.out" |
		awk '{ s += $1 } END { print s + 0 }')")" >>"$OUT/counts"
}

for _ in $(seq "$RUNS"); do
	run_base
	run_utrace entry "p:e hit $ARGS"
	run_utrace mid "p:m hit+$MID $ARGS"
	[ "$ROOTOK" = 1 ] && run_kernel
	[ "$HAVE_BPF" = 1 ] && run_bpf
	run_mt
	run_mt "p:m hit+$MIDL $ARGS"
done

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
col() { awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$OUT/times" | median; }

base=$(col baseline 3)
base_mt=$(col baseline-mt 3)
echo "dynamic probe cost per hit, two fetch-args (bench/probe.sh, $RUNS rounds, median; n=$N, trap cases n=$NT; mid = hit+$MID; -mt: 4 threads x n=$NM)"
printf '%-11s %12s %12s %16s %s\n' case wall_ns/hit cpu_ns/hit added_cpu_ns/hit counts
for c in baseline entry mid kernel bpftrace baseline-mt mid-mt; do
	w=$(col $c 2)
	[ -n "$w" ] || continue
	cpu=$(col $c 3)
	b=$base
	[ "${c%-mt}" != "$c" ] && b=$base_mt
	added=$(awk -v w="$cpu" -v b="$b" 'BEGIN { printf "%.2f", w - b }')
	echo "$c $added" >>"$OUT/added"
	cnt=$(awk -v c="$c" '$1 == c { $1 = ""; print substr($0, 2) }' "$OUT/counts" | sort | uniq -c |
		awk '{ $1 = $1 "x"; print }' | tr '\n' ' ')
	printf '%-11s %12.2f %12.2f %16s %s\n' "$c" "$w" "$cpu" "$added" "${cnt:--}"
done
add() { awk -v c="$1" '$1 == c { print $2 }' "$OUT/added"; }
for peer in kernel bpftrace; do
	p=$(add $peer)
	[ -n "$p" ] || continue
	for c in entry mid; do
		x=$(add $c)
		[ -n "$x" ] && awk -v p="$p" -v x="$x" -v a="$peer" -v c="$c" \
			'BEGIN { printf "%s / utrace %s, added CPU per hit: %.1fx\n", a, c, p / x }'
	done
done
bench_floors

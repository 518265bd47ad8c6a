#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/reader.sh [BUILD_DIR] (run by `make bench`) - the reader of today's
# build against the previous release's and against uftrace, on the same
# calls, in the same run, so that a slowdown of the reader shows when it
# happens (issue 25):
#
#   utrace report            23eeef7 report            uftrace replay
#   utrace report --profile  23eeef7 report --profile  uftrace report
#   utrace graph             23eeef7 graph             uftrace graph
#   utrace dump --chrome     23eeef7 dump --chrome     uftrace dump --chrome
#
# and today's build again with UTRACE_READ_THREADS=auto (the buffers
# decoded ahead by worker threads, lib/tracefile/dat_ahead.c), which pays
# only where a core is free.
#
# The previous release (READER_OLD, default 23eeef7, the version of
# 2026-11-21) is built from git into a cache folder (READER_CACHE, default
# ~/.cache/utrace-bench) once, and reused.  The workload is bench/fib.c
# (fib(FIB_N), default 30: 2.69M calls) recorded once by today's build; the
# old build reads that file when it can (the format is checked by running
# it), else it reads a recording of its own of the same program.  uftrace
# records a -pg build of the same program.
#
# Each command runs BENCH_RUNS times (default 5), interleaved; the medians
# of the wall time and of the CPU time (user + system: the machine is
# shared, and CPU time moves less with the load) are printed with the
# ratios.  Beside them, the machine's floor for a reader, measured in the
# same run: starting the tool (`utrace --version`), reading the trace out
# of the page cache (cat), and writing the text report's bytes (cat of a
# file of that size).  Timings are never pass/fail.
. "$(dirname "$0")/lib.sh"
N=${FIB_N:-30}
RUNS=${BENCH_RUNS:-5}
OLD=${READER_OLD:-23eeef7}
CACHE=${READER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/utrace-bench}
bench_tmp

# build_old: the previous release's utrace, built once into the cache
build_old() {
	local rev src
	rev=$(git -C "$ROOT" rev-parse --short=12 "$OLD^{commit}" 2>/dev/null) ||
		die "$OLD is not a commit of $ROOT"
	src=$CACHE/reader-$rev
	if [ ! -x "$src/build/utrace" ]; then
		echo "reader.sh: building $OLD into $src (once)" >&2
		rm -rf "$src"
		mkdir -p "$src"
		git -C "$ROOT" archive "$rev" | tar -x -C "$src" || die "git archive $OLD failed"
		make -C "$src" -j"$(nproc)" all >"$src.log" 2>&1 || die "building $OLD failed, see $src.log"
	fi
	OU=$src/build/utrace
}
build_old
command -v uftrace >/dev/null || die "uftrace is not installed (scripts/install-deps.sh bench)"

# shellcheck disable=SC2046 # the flags are a word list
cc -std=gnu11 -O2 $("$U" cflags) -o "$OUT/fib.utrace" "$ROOT/bench/fib.c"
cc -std=gnu11 -O2 -pg -o "$OUT/fib.pg" "$ROOT/bench/fib.c"
"$U" record -o "$OUT/u.dat" -- "$OUT/fib.utrace" "$N" >/dev/null 2>"$OUT/u.rec" ||
	die "utrace record failed: $(cat "$OUT/u.rec")"
(cd "$OUT" && GMON_OUT_PREFIX=$OUT/gmon uftrace record -d "$OUT/uftrace.data" "$OUT/fib.pg" "$N" >/dev/null 2>&1) ||
	die "uftrace record failed"
calls=$(sed -n 's/^utrace record: \([0-9]*\) records.*/\1/p' "$OUT/u.rec" | awk '{ print $1 / 2 }')
lost=$(sed -n 's/.*records (\([0-9]*\) lost).*/\1/p' "$OUT/u.rec")

# Does the old reader read today's file?  Else it reads its own recording.
"$U" report -i "$OUT/u.dat" >"$OUT/new.txt" 2>/dev/null
odat=$OUT/u.dat
if "$OU" report -i "$OUT/u.dat" >"$OUT/old.txt" 2>/dev/null && [ -s "$OUT/old.txt" ]; then
	same=$(cmp -s "$OUT/new.txt" "$OUT/old.txt" && echo "the same text" || echo "a different text")
	onote="reads today's file ($same)"
else
	# shellcheck disable=SC2046 # the flags are a word list
	cc -std=gnu11 -O2 $("$OU" cflags) -o "$OUT/fib.old" "$ROOT/bench/fib.c"
	"$OU" record -o "$OUT/old.dat" -- "$OUT/fib.old" "$N" >/dev/null 2>&1 || die "$OLD's record failed"
	odat=$OUT/old.dat
	onote="cannot read today's file: reads its own recording of the same program"
fi
text_bytes=$(stat -c %s "$OUT/new.txt")
rm -f "$OUT/old.txt"

# time_cmd NAME CMD...: wall s, CPU s (user + sys) of one run, appended
# (bash's time: milliseconds, where /usr/bin/time gives hundredths)
time_cmd() {
	local name=$1 t
	shift
	t=$({
		TIMEFORMAT='%3R %3U %3S'
		time "$@" >/dev/null 2>&1 || echo "reader.sh: $name failed" >&2
	} 2>&1)
	echo "$t" | awk 'NF == 3 { printf "%s %.3f\n", $1, $2 + $3 } NF != 3 { print > "/dev/stderr" }' \
		>>"$OUT/all.$name"
}

A="env UTRACE_READ_THREADS=auto $U"
declare -A CMDS=(
	[n_text]="$U report -i $OUT/u.dat" [o_text]="$OU report -i $odat"
	[a_text]="$A report -i $OUT/u.dat" [a_prof]="$A report --profile -i $OUT/u.dat"
	[a_graph]="$A graph -i $OUT/u.dat" [a_chrome]="$A dump --chrome -i $OUT/u.dat"
	[f_text]="uftrace replay -d $OUT/uftrace.data"
	[n_prof]="$U report --profile -i $OUT/u.dat" [o_prof]="$OU report --profile -i $odat"
	[f_prof]="uftrace report -d $OUT/uftrace.data"
	[n_graph]="$U graph -i $OUT/u.dat" [o_graph]="$OU graph -i $odat"
	[f_graph]="uftrace graph -d $OUT/uftrace.data"
	[n_chrome]="$U dump --chrome -i $OUT/u.dat" [o_chrome]="$OU dump --chrome -i $odat"
	[f_chrome]="uftrace dump --chrome -d $OUT/uftrace.data"
	[floor_start]="$U --version" [floor_read]="cat $OUT/u.dat" [floor_write]="cat $OUT/new.txt"
)
ORDER="n_text a_text o_text f_text n_prof a_prof o_prof f_prof n_graph a_graph o_graph f_graph"
ORDER="$ORDER n_chrome a_chrome o_chrome f_chrome"
ORDER="$ORDER floor_start floor_read floor_write"
cd "$OUT" || exit 1
for _ in $(seq "$RUNS"); do
	for k in $ORDER; do
		# shellcheck disable=SC2086 # the command line is a word list
		time_cmd "$k" ${CMDS[$k]}
	done
done

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$2" '{ print $c }' "$OUT/all.$1" | median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

printf '# The reader: utrace against %s and uftrace, fib(%s), %s calls (%s lost), %s runs, median\n\n' \
	"$OLD" "$N" "$calls" "$lost" "$RUNS"
printf '%s %s; uftrace replays its own recording of the same program.\n\n' "$OLD" "$onote"
printf '| task | utrace wall s | CPU s | CPU ns a call | ahead wall s | CPU s | %s wall s | CPU s | uftrace wall s | CPU s | %s / utrace (wall, CPU) | uftrace / utrace (wall, CPU) | uftrace / ahead (wall) |\n' "$OLD" "$OLD"
printf '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n'
row() {
	local what=$1 k=$2 nw nc aw ac ow oc fw fc
	nw=$(col "n_$k" 1) nc=$(col "n_$k" 2)
	aw=$(col "a_$k" 1) ac=$(col "a_$k" 2)
	ow=$(col "o_$k" 1) oc=$(col "o_$k" 2)
	fw=$(col "f_$k" 1) fc=$(col "f_$k" 2)
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s, %s | %s, %s | %s |\n' "$what" "$nw" \
		"$nc" "$(awk -v c="$nc" -v n="$calls" 'BEGIN { printf "%.1f", n ? c * 1e9 / n : 0 }')" \
		"$aw" "$ac" "$ow" "$oc" "$fw" "$fc" "$(ratio "$ow" "$nw")" "$(ratio "$oc" "$nc")" \
		"$(ratio "$fw" "$nw")" "$(ratio "$fc" "$nc")" "$(ratio "$fw" "$aw")"
}
row "text (report / replay)" text
row "profile (report --profile / report)" prof
row "call graph (graph / graph)" graph
row "Chrome JSON (dump --chrome)" chrome
printf '\nfloor, same run (wall s, CPU s): start the tool %s, %s; read the trace (%s bytes) %s, %s; write the text (%s bytes) %s, %s\n' \
	"$(col floor_start 1)" "$(col floor_start 2)" "$(stat -c %s "$OUT/u.dat")" "$(col floor_read 1)" \
	"$(col floor_read 2)" "$text_bytes" "$(col floor_write 1)" "$(col floor_write 2)"
printf 'machine: %s CPUs, %s, load %s\n' "$(nproc)" \
	"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(cut -d' ' -f1-3 /proc/loadavg)"
bench_floors

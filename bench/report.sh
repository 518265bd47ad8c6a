#!/bin/bash
# bench/report.sh [BUILD_DIR] - how fast utrace turns a trace into text and
# a profile, against uftrace on the same calls, in the same run:
#
#   utrace report            vs  uftrace replay
#   utrace report --profile  vs  uftrace report
#   utrace graph             vs  uftrace graph
#   utrace dump --chrome     vs  uftrace dump --chrome
#
# The workload is bench/fib.c (fib(FIB_N) calls, default 30), built with
# `utrace cflags` for utrace and -pg for uftrace and recorded by each.  Each
# command runs BENCH_RUNS times (default 5) interleaved; the median wall
# time and the peak resident memory are printed with the ratios.  Timings
# are never pass/fail: this is a noisy 2-core VM.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case "$B" in /*) ;; *) B="$top/$B" ;; esac
U="$B/utrace"
N=${FIB_N:-30}
RUNS=${BENCH_RUNS:-5}
out=$(mktemp -d /tmp/utrace-bench-report.XXXXXX)
trap 'rm -rf "$out"' EXIT

command -v uftrace >/dev/null || { echo "bench/report.sh: uftrace is not installed (scripts/install-deps.sh bench)" >&2; exit 1; }

cc -std=gnu11 -O2 $("$U" cflags) -o "$out/fib.utrace" "$top/bench/fib.c"
cc -std=gnu11 -O2 -pg -o "$out/fib.pg" "$top/bench/fib.c"
"$U" record -o "$out/u.dat" -- "$out/fib.utrace" "$N" >/dev/null 2>"$out/u.rec"
(cd "$out" && uftrace record -d "$out/uftrace.data" "$out/fib.pg" "$N" >/dev/null 2>&1)
calls=$(grep -o '^[^(]*records' "$out/u.rec" | awk '{print $3 / 2}')
lost=$(sed -n 's/.*records (\([0-9]*\) lost).*/\1/p' "$out/u.rec")

# time_cmd NAME CMD...: wall seconds and max RSS (KB) of one run
time_cmd() {
	local name=$1
	shift
	/usr/bin/time -f "%e %M" -o "$out/time.$name" "$@" >/dev/null 2>&1
	cat "$out/time.$name" >>"$out/all.$name"
}

declare -A CMDS=(
	[u_report]="$U report -i $out/u.dat"
	[f_replay]="uftrace replay -d $out/uftrace.data"
	[u_profile]="$U report --profile -i $out/u.dat"
	[f_report]="uftrace report -d $out/uftrace.data"
	[u_graph]="$U graph -i $out/u.dat"
	[f_graph]="uftrace graph -d $out/uftrace.data"
	[u_chrome]="$U dump --chrome -i $out/u.dat"
	[f_chrome]="uftrace dump --chrome -d $out/uftrace.data"
)
ORDER="u_report f_replay u_profile f_report u_graph f_graph u_chrome f_chrome"

for _ in $(seq "$RUNS"); do
	for k in $ORDER; do
		# shellcheck disable=SC2086 # the command line is a word list
		(cd "$out" && time_cmd "$k" ${CMDS[$k]})
	done
done

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
sec() { awk '{ print $1 }' "$out/all.$1" | median; }
rss() { awk '{ print $2 }' "$out/all.$1" | sort -n | tail -1; }

printf '# utrace report speed vs uftrace: fib(%s), %s traced calls, %s lost, %s runs, median\n\n' "$N" "$calls" "$lost" "$RUNS"
printf '| task | utrace s | utrace max RSS KB | uftrace s | uftrace max RSS KB | ratio uftrace/utrace |\n'
printf '|---|---|---|---|---|---|\n'
row() {
	local what=$1 u=$2 f=$3 us fs
	us=$(sec "$u")
	fs=$(sec "$f")
	printf '| %s | %s | %s | %s | %s | %s |\n' "$what" "$us" "$(rss "$u")" "$fs" "$(rss "$f")" \
		"$(awk -v a="$fs" -v b="$us" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
}
row "text (report / replay)" u_report f_replay
row "profile (report --profile / report)" u_profile f_report
row "call graph (graph / graph)" u_graph f_graph
row "Chrome JSON (dump --chrome)" u_chrome f_chrome
printf '\nmachine: %s CPUs, %s, load %s\n' "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(cut -d' ' -f1-3 /proc/loadavg)"
bash "$top/bench/floors.sh" || echo "floors: not measured"

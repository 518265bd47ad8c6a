#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/export.sh [BUILD_DIR] - the Perfetto protobuf export against the
# Chrome JSON export of the same recording, in the same run:
#
#   utrace dump --perfetto -o F.pftrace   vs   utrace dump --chrome -o F.json
#   (and uftrace dump --chrome of the same calls, when uftrace is installed)
#
# The workload is bench/fib.c (fib(FIB_N) calls, default 32: about 14M
# records; FIB_N=40 makes a utrace.dat of about 2.6 GB), recorded once.
# Each export runs BENCH_RUNS times (default 3) interleaved; the median wall
# time, the peak resident memory, the output size and the ns per record
# are printed with the ratios.  Timings are never pass/fail.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case "$B" in /*) ;; *) B="$top/$B" ;; esac
U="$B/utrace"
N=${FIB_N:-32}
RUNS=${BENCH_RUNS:-3}
dir=${BENCH_DIR:-/tmp}
out=$(mktemp -d "$dir/utrace-bench-export.XXXXXX")
trap 'rm -rf "$out"' EXIT

cc -std=gnu11 -O2 $("$U" cflags) -o "$out/fib.utrace" "$top/bench/fib.c"
"$U" record -o "$out/u.dat" -- "$out/fib.utrace" "$N" >/dev/null 2>"$out/u.rec"
records=$(sed -n 's/^utrace record: \([0-9]*\) records.*/\1/p' "$out/u.rec")
have_uftrace=
if command -v uftrace >/dev/null; then
	cc -std=gnu11 -O2 -pg -o "$out/fib.pg" "$top/bench/fib.c"
	(cd "$out" && uftrace record -d "$out/uftrace.data" "$out/fib.pg" "$N" >/dev/null 2>&1) &&
		have_uftrace=1
fi

time_cmd() { # time_cmd NAME OUTFILE CMD...: wall s, max RSS KB, output bytes
	local name=$1 file=$2
	shift 2
	/usr/bin/time -f "%e %M" -o "$out/time" "$@" >/dev/null 2>&1
	echo "$(cat "$out/time") $(stat -c %s "$file")" >>"$out/all.$name"
	rm -f "$file"
}
for _ in $(seq "$RUNS"); do
	time_cmd perfetto "$out/t.pftrace" "$U" dump --perfetto -i "$out/u.dat" -o "$out/t.pftrace"
	time_cmd chrome "$out/t.json" "$U" dump --chrome -i "$out/u.dat" -o "$out/t.json"
	if [ -n "$have_uftrace" ]; then
		time_cmd uftrace "$out/f.json" sh -c "cd '$out' && uftrace dump --chrome -d uftrace.data >f.json"
	fi
done

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$2" '{ print $c }' "$out/all.$1" | median; }

printf '# utrace dump --perfetto vs --chrome: fib(%s), %s records (utrace.dat %s bytes), %s runs, median\n\n' \
	"$N" "$records" "$(stat -c %s "$out/u.dat")" "$RUNS"
printf '| export | s | ns/record | max RSS KB | output bytes | time / perfetto | size / perfetto |\n'
printf '|---|---|---|---|---|---|---|\n'
ps=$(col perfetto 1)
pb=$(col perfetto 3)
row() {
	local s b
	s=$(col "$2" 1)
	b=$(col "$2" 3)
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$s" \
		"$(awk -v s="$s" -v n="$records" 'BEGIN { printf "%.1f", s * 1e9 / n }')" \
		"$(col "$2" 2)" "$b" \
		"$(awk -v a="$s" -v b="$ps" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
		"$(awk -v a="$b" -v b="$pb" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
}
row "utrace dump --perfetto" perfetto
row "utrace dump --chrome" chrome
[ -n "$have_uftrace" ] && row "uftrace dump --chrome" uftrace
printf '\nmachine: %s CPUs, %s, load %s\n' "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(cut -d' ' -f1-3 /proc/loadavg)"
bash "$top/bench/floors.sh" || echo "floors: not measured"

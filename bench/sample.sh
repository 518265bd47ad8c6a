#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/sample.sh [BUILD_DIR] - sampling against perf, in the same run, on
# tests/kernel/kburn.c (CPU time in three functions, no system calls):
#
#   cost:   plain run  vs  utrace record -p nop -F 999 --call-graph fp
#                      vs  perf record -F 999 -g
#                      vs  perf record -B -F 999 -g  (without its build-id pass)
#           (wall time minus the plain run's: what sampling adds)
#   dwarf:  utrace record --call-graph dwarf  vs  perf record --call-graph
#           dwarf (8 KiB of stack a sample), the same added-time measure
#   report: utrace report --samples  vs  perf report --stdio --no-children
#           on recordings of the same run length at SAMPLE_HZ (default
#           10000) so that both read the same number of samples; and
#           report -g of the dwarf recordings (both unwind at report time)
#
# BENCH_RUNS (default 5) interleaved runs, medians.  Timings are never
# pass/fail.  Needs root (or perf_event_paranoid <= 1) and perf.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case "$B" in /*) ;; *) B="$top/$B" ;; esac
U="$B/utrace"
RUNS=${BENCH_RUNS:-5}
N=${KBURN_N:-6000000}
HZ=${SAMPLE_HZ:-10000}
out=$(mktemp -d /tmp/utrace-bench-sample.XXXXXX)
trap 'rm -rf "$out"' EXIT
command -v perf >/dev/null || { echo "bench/sample.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }

cc -O2 -fno-omit-frame-pointer -o "$out/kburn" "$top/tests/kernel/kburn.c"
t() { # t NAME CMD...: wall seconds appended to all.NAME
	local name=$1 s e
	shift
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	e=$(date +%s.%N)
	echo "$s $e" | awk '{ printf "%.4f\n", $2 - $1 }' >>"$out/all.$name"
}
for _ in $(seq "$RUNS"); do
	t plain "$out/kburn" "$N"
	t utrace "$U" record -p nop -F 999 --call-graph fp -o "$out/u.dat" -- "$out/kburn" "$N"
	t perf perf record -q -F 999 -g -o "$out/p.data" "$out/kburn" "$N"
	t perfB perf record -q -B -F 999 -g -o "$out/pB.data" "$out/kburn" "$N"
	t udwarf "$U" record -p nop -F 999 --call-graph dwarf -o "$out/ud.dat" -- "$out/kburn" "$N"
	t pdwarf perf record -q -F 999 --call-graph dwarf -o "$out/pd.data" "$out/kburn" "$N"
done
"$U" record -p nop -F "$HZ" --call-graph fp -o "$out/ur.dat" -- "$out/kburn" "$N" >/dev/null 2>"$out/ur.err"
perf record -q -F "$HZ" -g -o "$out/pr.data" "$out/kburn" "$N" >/dev/null 2>&1
us=$(sed -n 's/.*: \([0-9]*\) samples at.*/\1/p' "$out/ur.err")
ps=$(perf report --stdio -i "$out/pr.data" --no-children 2>/dev/null | sed -n "s/^# Samples: \([0-9]*[KM]*\) .*/\1/p")
for _ in $(seq "$RUNS"); do
	t urep "$U" report --samples -i "$out/ur.dat"
	t prep perf report --stdio --no-children -g none -i "$out/pr.data"
	t udrep "$U" report --samples -g -i "$out/ud.dat"
	t pdrep perf report --stdio --no-children -g -i "$out/pd.data"
done

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
m() { median <"$out/all.$1"; }
plain=$(m plain)
printf '# sampling: utrace vs perf, kburn %s, %s runs, median wall seconds\n\n' "$N" "$RUNS"
printf '| case | s | added over plain s | added / perf added |\n|---|---|---|---|\n'
pa=$(awk -v a="$(m perf)" -v b="$plain" 'BEGIN { print a - b }')
for k in plain utrace perf perfB; do
	a=$(awk -v a="$(m $k)" -v b="$plain" 'BEGIN { printf "%.4f", a - b }')
	printf '| %s | %s | %s | %s |\n' "$k" "$(m $k)" "$a" \
		"$(awk -v a="$a" -v p="$pa" 'BEGIN { if (p > 0) printf "%.2f", a / p; else print "-" }')"
done
pd=$(awk -v a="$(m pdwarf)" -v b="$plain" 'BEGIN { print a - b }')
printf '\n# --call-graph dwarf (8 KiB stack copies)\n\n| case | s | added over plain s | added / perf dwarf added |\n|---|---|---|---|\n'
for k in udwarf pdwarf; do
	a=$(awk -v a="$(m $k)" -v b="$plain" 'BEGIN { printf "%.4f", a - b }')
	printf '| %s | %s | %s | %s |\n' "$k" "$(m $k)" "$a" \
		"$(awk -v a="$a" -v p="$pd" 'BEGIN { if (p > 0) printf "%.2f", a / p; else print "-" }')"
done
printf '\n# report of the samples at %s Hz (utrace %s samples, perf %s)\n\n' "$HZ" "$us" "$ps"
printf '| report | s | perf / utrace |\n|---|---|---|\n'
printf '| utrace report --samples | %s | %s |\n' "$(m urep)" \
	"$(awk -v a="$(m prep)" -v b="$(m urep)" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
printf '| perf report --stdio --no-children | %s | 1.00 |\n' "$(m prep)"
printf '| utrace report --samples -g (dwarf, 999 Hz) | %s | %s |\n' "$(m udrep)" \
	"$(awk -v a="$(m pdrep)" -v b="$(m udrep)" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
printf '| perf report --stdio --no-children -g (dwarf) | %s | 1.00 |\n' "$(m pdrep)"
printf '\nmachine: %s CPUs, load %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
bash "$top/bench/floors.sh" || echo "floors: not measured"

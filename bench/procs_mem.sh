#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/procs_mem.sh [BUILD_DIR] (run by `make bench`) - the reader's memory
# as a trace's processes grow (issue 25): a shell loop runs one small
# traced program (tests/progs/simple.c) 1, 100 and 800 times (PROCS, a
# list) under `utrace record -p function` (the shell is traced too, with
# its libraries) and under function_graph, and each reader's peak resident
# memory is measured with /usr/bin/time (max RSS):
#
#   report, report --profile, dump --chrome (the function recording)
#   graph main (the function_graph one: a graph needs returns)
#
# The symbol tables and site lists every process brings are kept once per
# binary (lib/tracefile/dat_bins.c), so the figures should stay near the
# 1-process run's: the ratio column is each run against it.  The floor,
# measured in the same run, is what the tool takes to start
# (`utrace --version`).  Figures are never pass/fail here; the unit test
# tests/unit/test_dat_bins.c holds the bound.
. "$(dirname "$0")/lib.sh"
PROCS=${PROCS:-1 100 800}
bench_tmp
[ -x /usr/bin/time ] || die "/usr/bin/time is not installed (apt-get install time)"

# shellcheck disable=SC2046 # the flags are a word list
cc -std=gnu11 -O2 $("$U" cflags) -I"$ROOT/tests/progs" -o "$OUT/simple" "$ROOT/tests/progs/simple.c"

rss() { # rss VAR CMD...: VAR = max RSS in KB of one run
	local var=$1
	shift
	/usr/bin/time -f '%M' -o "$OUT/time" "$@" >/dev/null 2>"$OUT/err" ||
		die "failed: $* ($(head -3 "$OUT/err"))"
	printf -v "$var" '%s' "$(cat "$OUT/time")"
}

record() { # record TRACER N: $OUT/TRACER-N.dat of the loop of N processes
	"$U" record -p "$1" -o "$OUT/$1-$2.dat" -- sh -c \
		"i=0; while [ \$i -lt $2 ]; do '$OUT/simple' >/dev/null; i=\$((i+1)); done" \
		>/dev/null 2>"$OUT/rec" || die "record of $2 processes failed: $(cat "$OUT/rec")"
}

rss floor "$U" --version
declare -A base
printf '| processes | file MB (function, function_graph) | report KB | --profile KB | dump --chrome KB | graph KB | ratio to 1 process (report, --profile, chrome, graph) |\n'
printf '|---|---|---|---|---|---|---|\n'
for n in $PROCS; do
	record function "$n"
	record function_graph "$n"
	dat=$OUT/function-$n.dat
	rss r "$U" report -i "$dat"
	rss p "$U" report --profile -i "$dat"
	rss c "$U" dump --chrome -i "$dat"
	rss g "$U" graph -i "$OUT/function_graph-$n.dat" main
	if [ -z "${base[r]:-}" ]; then
		base=([r]=$r [p]=$p [g]=$g [c]=$c [n]=$n)
	fi
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$n" \
		"$(stat -c %s "$dat" "$OUT/function_graph-$n.dat" |
			awk '{ printf "%s%.1f", (NR > 1 ? ", " : ""), $1 / 1048576 }')" "$r" "$p" "$c" "$g" \
		"$(awk -v r="$r" -v p="$p" -v g="$g" -v c="$c" -v R="${base[r]}" -v P="${base[p]}" \
			-v G="${base[g]}" -v C="${base[c]}" \
			'BEGIN { printf "%.2f, %.2f, %.2f, %.2f", r / R, p / P, c / C, g / G }')"
	rm -f "$OUT"/*-"$n".dat
done
printf '\nreport, --profile and dump --chrome read the -p function recording (the shell traced too,\n'
printf 'with its libraries), graph the function_graph one; ratios against the %s-process run.\n' "${base[n]}"
printf 'floor, same run: the tool starting (utrace --version) %s KB\n' "$floor"
printf 'machine: %s CPUs, load %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
bench_floors

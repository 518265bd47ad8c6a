#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/counts.sh - the counts a recording gives are exact (issue
# 21, items 14 and 15), for a program whose number of calls is known
# (progs/counts_calls.c: main, a worker per thread, N calls of leaf each).
#
# 14: `record -b 64 --overwrite` keeps a few sub-buffers of many: RECORDS
# (report --stat) and entries-written count every record the threads
# wrote, OVERRUN (in records, the kernel's `overrun`) what was overwritten,
# and record's summary says the same number.
# 15: `--drop -O funcgraph-retval` (and funcgraph-args): records written +
# lost == the records the calls make, exactly (the RETVAL after an exit is
# part of that exit's record, not one of its own).
# --no-libcall: the known number is of the program's own calls.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

N=200000
total() { # total FILE WHAT: records|lost|overrun from report --stat's total line
	"$U" report -i "$1" --stat 2>/dev/null |
		sed -n "s/^# total: .* \([0-9]*\) records, \([0-9]*\) lost, .* \([0-9]*\) overrun$/\1 \2 \3/p" |
		awk -v w="$2" '{ print w == "records" ? $1 : w == "lost" ? $2 : $3 }'
}
saved() { # saved REC_STDERR: the records record says it saved
	sed -n 's/^utrace record: \([0-9]*\) records (.*saved to.*/\1/p' "$1"
}
# calls THREADS: the calls counts_calls makes
calls() { echo $(($1 == 0 ? N + 2 : 1 + $1 + $1 * N)); }

for cc in "gcc -O2" "clang -O0"; do
	set -- $cc
	command -v "$1" >/dev/null || { echo "# no $1"; continue; }
	name=calls-$1$2
	build "$name" counts_calls.c "$1" "$2" || continue
	for threads in 0 3; do
		want=$(calls $threads)
		for tracer in function function_graph; do
			per=1
			[ $tracer = function_graph ] && per=2
			what="$cc, $threads threads, -p $tracer"
			# 14: overwrite
			"$U" record -p $tracer --no-libcall -b 64 --overwrite -o "$W/ow.dat" -- \
				"$W/$name" $N $threads >/dev/null 2>"$W/ow.err"
			recs=$(total "$W/ow.dat" records)
			over=$(total "$W/ow.dat" overrun)
			check "--overwrite: RECORDS counts every record written ($what)" \
				test "$recs" = $((per * want))
			check "--overwrite: OVERRUN is what was not saved, in records ($what)" \
				test -n "$over" -a "$over" -gt 0 -a "$over" = $((recs - $(saved "$W/ow.err")))
			check "--overwrite: record's summary says as many overwritten ($what)" \
				grep -q "; $over older records were overwritten" "$W/ow.err"
			if [ $tracer = function ]; then
				check "--overwrite: entries-written counts the overwritten ($what)" \
					grep -q "^# entries-in-buffer/entries-written: [0-9]*/$((per * want)) " \
					<("$U" report -i "$W/ow.dat" 2>/dev/null | head -5)
			fi
			[ $tracer = function ] && continue
			# 15: written + lost, retval and args
			for opt in funcgraph-retval funcgraph-args; do
				"$U" record -p $tracer --no-libcall --drop -O $opt -b 64 -o "$W/drop.dat" -- \
					"$W/$name" $N $threads >/dev/null 2>"$W/drop.err"
				recs=$(total "$W/drop.dat" records)
				lost=$(total "$W/drop.dat" lost)
				check "--drop -O $opt: written + lost == the calls' records ($what)" \
					test -n "$recs" -a "$((recs + lost))" = $((per * want))
				[ "$((recs + lost))" = $((per * want)) ] ||
					echo "#   $recs written + $lost lost, $((per * want)) made"
			done
		done
	done
done

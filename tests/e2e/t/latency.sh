# SPDX-License-Identifier: MIT
#
# tests/e2e/t/latency.sh - utrace latency on tests/progs/latency.c (one test
# per configuration): the program's output and status pass through, the
# histogram in perf's layout, -n --hide-empty, a -T of no function, usage
# errors

e2e_cfg latency - check_latency

# utrace latency on tests/progs/latency.c (nap() sleeps 2 ms five times,
# quick() returns at once 20 times, exit status 3): the program's stdout,
# stderr and status pass through, the histogram follows its stdout in
# perf's layout.  Only buckets far apart are counted, whatever the noise:
# quick's under 1024 us (the "us" buckets), nap's from there on.
latency_hist() { # latency_hist: the histogram part of $RES/t.out
	tail -c +$(($(stat -c %s "$RES/u.out") + 1)) "$RES/t.out" >"$RES/hist.txt"
}

latency_sum() { # latency_sum UNIT-REGEX: the counts of the bucket lines in those units
	awk -F'|' -v re="$1" '$1 ~ "^  .{4} - .{4} (" re ") *$" { c += $2 } END { print c + 0 }' "$RES/hist.txt"
}

check_latency() {
	local prog=$BIN/latency ust tst n bad hdr
	TEST=latency
	RES=$OUT/$CFG/res/latency
	rm -rf "$RES"
	mkdir -p "$RES"
	if [ ! -x "$prog" ]; then
		nok "$CFG latency run" "$prog was not built (see $OUT/build.log)"
		return
	fi
	(cd "$RUN" && { timeout -k 5 "$TMO" "$prog" >"$RES/u.out" 2>"$RES/u.err" </dev/null; } 2>/dev/null)
	ust=$?
	(cd "$RUN" && { timeout -k 5 "$TMO" "$UTRACE" latency -T nap -T quick -- "$prog" \
		>"$RES/t.out" 2>"$RES/t.err" </dev/null; } 2>/dev/null)
	tst=$?
	t "$([ "$ust" = 3 ] && [ "$tst" = 3 ]; echo $?)" "$CFG latency exit status passed on (3)" \
		"untraced $ust, utrace latency $tst" "$(head -5 "$RES/t.err")"
	t "$(cmp -s "$RES/u.out" <(head -c "$(stat -c %s "$RES/u.out")" "$RES/t.out"); echo $?)" \
		"$CFG latency stdout: the program's, unchanged, first" "$(head -5 "$RES/t.out")"
	grep -Ev '^utrace (record|latency):' "$RES/t.err" >"$RES/t.err.prog"
	t "$(cmp -s "$RES/u.err" "$RES/t.err.prog"; echo $?)" "$CFG latency stderr unchanged" \
		"$(diff "$RES/u.err" "$RES/t.err.prog" | head -5)"
	latency_hist
	hdr='#   DURATION     |      COUNT | GRAPH                                          |'
	n=$(grep -cE '^  [ 0-9]{4} - [ .0-9]{4} (us|ms|s ) \| +[0-9]+ \| #* *\|$' "$RES/hist.txt")
	bad=$(awk 'NR <= 23 && length($0) != 80' "$RES/hist.txt" | head -3)
	t "$([ "$(head -1 "$RES/hist.txt")" = "$hdr" ] && [ "$n" = 22 ] && [ -z "$bad" ]; echo $?)" \
		"$CFG latency perf's layout: header, 22 buckets of 80 columns" \
		"$n bucket lines; not 80 columns: $bad" "$(head -5 "$RES/hist.txt")"
	t "$([ "$(latency_sum us)" = 20 ] && [ "$(latency_sum 'ms|s ')" = 5 ]; echo $?)" \
		"$CFG latency quick's 20 calls under 1024 us, nap's 5 from 2 ms" \
		"$(cat "$RES/hist.txt")"
	t "$(grep -qxE '       count: +25' "$RES/hist.txt" &&
		[ "$(sed -n 's/^    min time: *//p' "$RES/hist.txt")" -lt 1024 ] &&
		[ "$(sed -n 's/^    max time: *//p' "$RES/hist.txt")" -ge 2000 ]; echo $?)" \
		"$CFG latency statistics: 25 calls, min under 1024 us, max from 2000 us" \
		"$(tail -7 "$RES/hist.txt")"

	# -n --hide-empty, nap alone: 2 ms is past 2^20 ns, all in the last
	# bucket with the whole bar, the only one printed
	(cd "$RUN" && "$UTRACE" latency -n --hide-empty -T nap -- "$prog" >"$RES/t.out" 2>"$RES/t.err" </dev/null)
	tst=$?
	latency_hist
	t "$([ "$tst" = 3 ] && [ "$(sed -n 2p "$RES/hist.txt")" = \
		"     1 - ...  ms |          5 | ############################################## |" ] &&
		[ -z "$(sed -n 3p "$RES/hist.txt")" ] &&
		grep -qx '# statistics  (in nsec)' "$RES/hist.txt"; echo $?)" \
		"$CFG latency -n --hide-empty: nap's 5 calls in the last ns bucket only" \
		"status $tst" "$(cat "$RES/hist.txt")"

	# a -T that matches nothing: said in -T's terms, status 2, no histogram
	(cd "$RUN" && "$UTRACE" latency -T 'nosuch*' -T nap -- "$prog" >"$RES/t.out" 2>"$RES/t.err" </dev/null)
	tst=$?
	t "$([ "$tst" = 2 ] && cmp -s "$RES/u.out" "$RES/t.out" &&
		grep -qx "utrace latency: -T 'nosuch\*' matched no function of the traced programs (utrace list -f $prog shows them)" \
			"$RES/t.err" && ! grep -q "'nap'" "$RES/t.err"; echo $?)" \
		"$CFG latency -T of no function: said, status 2, no histogram" \
		"status $tst" "$(cat "$RES/t.err")"
	# usage errors: one line, status 2, the program never ran
	for bad in "-- $prog" "-b -T nap -- $prog" "-T nap --min-latency 5 -- $prog"; do
		# shellcheck disable=SC2086 # a word list on purpose
		"$UTRACE" latency $bad >"$RES/t.out" 2>"$RES/t.err" </dev/null
		tst=$?
		t "$([ "$tst" = 2 ] && [ ! -s "$RES/t.out" ] && [ "$(wc -l <"$RES/t.err")" = 1 ]; echo $?)" \
			"$CFG latency $bad: one-line error, status 2, nothing ran" \
			"status $tst" "$(cat "$RES/t.out" "$RES/t.err")"
	done
}

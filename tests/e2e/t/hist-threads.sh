# SPDX-License-Identifier: MIT
#
# tests/e2e/t/hist-threads.sh - 8 threads hammer one hist table at once
# (hist_threads.c, -p nop -v: the fast path only): every count exact

e2e_test "hist-threads -p nop -v -e hist:hist_req -R hist:keys=id:vals=bytes -- hist_threads"

# each of the 8 keys: 8 threads * 20000 hits, bytes summed k + 1 a hit
check_hist_threads() {
	local got
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	got=$(awk '/^\{ id:/ { k = $3; sub(/}/, "", k); n++
			if ($6 != 160000 || $8 != 160000 * (k + 1)) bad = bad " " $0 }
		/^ *Dropped:/ { if ($2 != 0) bad = bad " dropped " $2 }
		END { if (n != 8) print "keys " n; else if (bad != "") print bad; else print "exact" }' "$RES/hist.txt")
	t "$([ "$got" = exact ]; echo $?)" "$CFG $TEST 8 threads on one table: every count exact" \
		"got: $got; $(head -20 "$RES/hist.txt")"
}

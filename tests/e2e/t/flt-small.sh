# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-small.sh - record --drop -b 64 on longrun 400000
# Must hold: records lost (more than 0), and record's summary, report's LOST
# lines and report --stat agree on how many.

e2e_test "flt-small --drop -b 64 -- longrun 400000"

# A 64 KB buffer in drop mode loses records: every place that counts them
# must agree (the summary of record, the LOST lines of report, report --stat).
check_flt_small() {
	local rec lines stat
	rec=$(sed -n 's/^utrace record: [0-9]* records (\([0-9]*\) lost).*/\1/p' "$RES/t.err")
	lines=$("$UTRACE" report -i "$RES/trace.dat" 2>/dev/null |
		sed -n 's/.*\[LOST \([0-9]*\) EVENTS\].*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	stat=$("$UTRACE" report --stat -i "$RES/trace.dat" 2>/dev/null |
		sed -n 's/^# total: .* records, \([0-9]*\) lost,.*/\1/p')
	if [ "${rec:-0}" -gt 0 ] && [ "$rec" = "$lines" ] && [ "$rec" = "$stat" ]; then
		ok "$CFG $TEST lost counts agree ($rec)"
	else
		nok "$CFG $TEST lost counts agree" "record ${rec:-?}, report lines $lines, --stat ${stat:-?}"
	fi
}

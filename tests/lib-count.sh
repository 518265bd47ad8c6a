# SPDX-License-Identifier: MIT
#
# tests/lib-count.sh - the tally shared by tests/run-unit.sh and
# tests/kernel/run.sh, sourced (POSIX sh).  Sets passed, failed and
# skipped to 0 and out to a temporary file (removed on exit) for a test's
# output, and defines
#   tally NAME STATUS   adds up the lines of $out, the output of test NAME
#                       that exited with STATUS: "ok..." passed, "not ok..."
#                       failed, "UNSUPPORTED:..." skipped; prints the
#                       failing and unsupported ones as "NAME: LINE", each
#                       failure with the "#" lines that follow it (the
#                       difference, so a failure in CI can be read).  A
#                       test that exits non-zero without a "not ok" line
#                       (it crashed, or failed without saying which check)
#                       counts as one failure.
passed=0
failed=0
skipped=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT INT TERM

tally() {
	tally_ok=$(grep -c '^ok' "$out")
	tally_bad=$(grep -c '^not ok' "$out")
	tally_skip=$(grep -c '^UNSUPPORTED:' "$out")
	awk -v n="$1" '/^(not ok|UNSUPPORTED:)/ { print n ": " $0; d = /^not ok/; k = 0; next }
		d && /^#/ && k++ < 12 { print n ":   " $0; next } { d = 0 }' "$out"
	if [ "$2" -ne 0 ] && [ "$tally_bad" -eq 0 ]; then
		echo "$1: not ok - exited with status $2"
		tail -n 5 "$out" | sed "s|^|$1:   |"
		tally_bad=1
	fi
	passed=$((passed + tally_ok))
	failed=$((failed + tally_bad))
	skipped=$((skipped + tally_skip))
}

#!/bin/sh
# SPDX-License-Identifier: MIT
# run-unit.sh BUILD_DIR - run every unit test binary in BUILD_DIR/tests.
#
# Each test prints "ok - ..." or "not ok - ..." per check and exits
# non-zero if one failed.  Prints the failing lines, then
# "unit: N passed, N failed"; exits non-zero on any failure.
B=${1:-build}
passed=0
failed=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT INT TERM

for t in "$B"/tests/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	name=$(basename "$t")
	"$t" >"$out" 2>&1
	rc=$?
	ok=$(grep -c '^ok' "$out")
	bad=$(grep -c '^not ok' "$out")
	grep '^not ok' "$out" | sed "s|^|$name: |"
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		# Crashed or failed without saying which check: count it.
		echo "$name: not ok - exited with status $rc"
		tail -n 5 "$out" | sed "s|^|$name:   |"
		bad=1
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
done

echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

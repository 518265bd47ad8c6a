#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/run.sh BUILD_DIR - the kernel tier: tests that need kernel
# features an unprivileged container may not have (perf_event_open, ...).
#
# Runs every tests/kernel/*.sh but itself as "bash SCRIPT BUILD_DIR" (an
# absolute path).  Each prints one line per check:
#   ok - WHAT            passed
#   not ok - WHAT        failed
#   UNSUPPORTED: WHY     could not run here (a skip, not a failure)
# A script that exits non-zero without a "not ok" line counts as one
# failure.  Prints the failing and unsupported lines, then
# "kernel: N skipped" and last "kernel: N passed, N failed"; exits non-zero
# on any failure.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B

passed=0
failed=0
skipped=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT INT TERM

for t in "$ROOT"/tests/kernel/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	[ "$name" = run ] && continue
	bash "$t" "$B" >"$out" 2>&1
	rc=$?
	ok=$(grep -c '^ok' "$out")
	bad=$(grep -c '^not ok' "$out")
	skip=$(grep -c '^UNSUPPORTED:' "$out")
	grep -E '^(not ok|UNSUPPORTED:)' "$out" | sed "s|^|$name: |"
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		echo "$name: not ok - exited with status $rc"
		tail -n 5 "$out" | sed "s|^|$name:   |"
		bad=1
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
	skipped=$((skipped + skip))
done

echo "kernel: $skipped skipped"
echo "kernel: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/run.sh BUILD_DIR - the kernel tier: tests that need kernel
# features an unprivileged container may not have (perf_event_open, ...).
#
# Runs every tests/kernel/*.sh but itself and lib.sh (which they source)
# as "bash SCRIPT BUILD_DIR" (an absolute path).  Each prints one line per
# check:
#   ok - WHAT            passed
#   not ok - WHAT        failed
#   UNSUPPORTED: WHY     could not run here (a skip, not a failure)
# A script that exits non-zero without a "not ok" line counts as one
# failure (tests/lib-count.sh adds them up).  Prints the failing and unsupported lines, then
# "kernel: N skipped" and last "kernel: N passed, N failed"; exits non-zero
# on any failure.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B

. "$ROOT/tests/lib-count.sh"

for t in "$ROOT"/tests/kernel/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	case $name in run | lib) continue ;; esac
	bash "$t" "$B" >"$out" 2>&1
	tally "$name" $?
done

echo "kernel: $skipped skipped"
echo "kernel: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

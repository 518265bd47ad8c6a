#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/run.sh BUILD_DIR - the hostile-program tier (issue 21):
# programs that do what a tracer finds hardest (coroutines, raw clone,
# signal handlers that call traced code, fork with locks held, Go, Node,
# JVMs, daemons, ...) run untraced and under every utrace mode; output,
# exit status and what the program can observe (errno, sleep times, signal
# dispositions) must be the same, and counts exact where a mode has them.
#
# Runs every tests/hostile/*.sh but itself and lib.sh as "bash SCRIPT
# BUILD_DIR"; each prints "ok - WHAT", "not ok - WHAT" or "UNSUPPORTED:
# WHY" lines (tests/lib-count.sh adds them up).  Ends with
# "hostile: N passed, N failed".  HOSTILE_ONLY=NAME runs one script.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B

. "$ROOT/tests/lib-count.sh"

for t in "$ROOT"/tests/hostile/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	case $name in run | lib) continue ;; esac
	[ -n "${HOSTILE_ONLY:-}" ] && [ "$name" != "$HOSTILE_ONLY" ] && continue
	bash "$t" "$B" >"$out" 2>&1
	tally "$name" $?
done

echo "hostile: $skipped skipped"
echo "hostile: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

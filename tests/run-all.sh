#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/run-all.sh BUILD_DIR - every test tier, in order:
#   tests/run-unit.sh     unit tests (BUILD_DIR/tests/*)
#   tests/e2e/run.sh      end-to-end: programs built and traced (docs/testing.md)
#   tests/ui/run.sh       what a browser shows (headless Chromium)
#   tests/stress/run.sh   random programs with exceptions, traced vs untraced
#   tests/fuzz/run.sh     libFuzzer harnesses, FUZZ_TIME seconds each (default 8)
#   tests/kernel/run.sh   (when present)
#   tests/diff/run.sh     the peers' figures on the same recordings (issue 22)
#   tests/hostile/run.sh  hostile programs under every mode (issue 21)
#   tests/ftracetest/run.sh  the kernel's ftrace selftests on --tracefs (issue 23)
#   tests/bt/run.sh       bpftrace's runtime suite against utrace bt (issue 27)
# Each tier ends with "<tier>: N passed, N failed"; this script adds them up
# and ends with exactly one line "N passed, N failed".  A tier that ends
# without its summary line counts as one failure.  Exits 1 on any failure.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B

passed=0
failed=0
out=$(mktemp) || exit 1
fails=$(mktemp) || exit 1
trap 'rm -f "$out" "$fails"' EXIT INT TERM

if [ ! -x "$ROOT/tests/run-unit.sh" ] && [ ! -f "$ROOT/tests/run-unit.sh" ]; then
	echo "run-all: tests/run-unit.sh is missing" >&2
fi

tier() { # tier NAME SCRIPT [BUILD_DIR]
	local name=$1 script=$2 dir=${3:-$B} summary p f rc
	[ -f "$script" ] || return 0
	echo "=== $name${3:+ ($dir)}"
	bash "$script" "$dir" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	# the failed checks and their first lines of explanation, for the recap
	# ("not ok" lines, bt's "FAIL ID: WHY" and "TIMEOUT ID: WHY"; the "#" lines may carry the
	# name of the script that printed them, "pprof:   #   1d0")
	awk -v t="$name" '(/not ok/ && !/\(known, not counted/) || /^(FAIL|TIMEOUT) / { print t ": " $0; k = 4; next }
		k > 0 && /^ *([A-Za-z0-9_.-]+: +)?#/ { print t ": " $0; k--; next } { k = 0 }' "$out" >>"$fails"
	summary=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed$" "$out" | tail -1)
	if [ -z "$summary" ]; then
		echo "not ok - $name tier ended without its summary line (status $rc)" | tee -a "$fails"
		failed=$((failed + 1))
		return
	fi
	p=$(echo "$summary" | sed -E 's/^[a-z0-9]+: ([0-9]+) passed, ([0-9]+) failed$/\1/')
	f=$(echo "$summary" | sed -E 's/^[a-z0-9]+: ([0-9]+) passed, ([0-9]+) failed$/\2/')
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name tier exited with status $rc but reported no failure" | tee -a "$fails"
		failed=$((failed + 1))
	fi
}

tier unit "$ROOT/tests/run-unit.sh"
# the same unit tests under AddressSanitizer + UBSan (make test builds them)
if [ -d "$ROOT/build-san/tests" ]; then
	tier unit "$ROOT/tests/run-unit.sh" "$ROOT/build-san"
fi
tier e2e "$ROOT/tests/e2e/run.sh"
tier ui "$ROOT/tests/ui/run.sh"
tier stress "$ROOT/tests/stress/run.sh"
# a short run of each harness keeps CI fast; `make fuzz` runs longer
FUZZ_TIME=${FUZZ_TIME:-8} tier fuzz "$ROOT/tests/fuzz/run.sh"
tier kernel "$ROOT/tests/kernel/run.sh"
tier diff "$ROOT/tests/diff/run.sh"
tier hostile "$ROOT/tests/hostile/run.sh"
tier ftracetest "$ROOT/tests/ftracetest/run.sh"
tier bt "$ROOT/tests/bt/run.sh"

# a recap of what failed, right above the last line, where a log's tail
# (a CI page) shows it even when the tiers' output is long
if [ -s "$fails" ]; then
	echo "=== the failed checks"
	head -60 "$fails"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/bin/sh
# SPDX-License-Identifier: MIT
# run-unit.sh BUILD_DIR - run every unit test binary in BUILD_DIR/tests,
# and tests/check-layers.sh on BUILD_DIR's objects.
#
# Each test prints "ok - ..." or "not ok - ..." per check and exits
# non-zero if one failed (tests/lib-count.sh adds them up; a test that
# crashes counts as one failure).  Prints the failing lines, then
# "unit: N passed, N failed"; exits non-zero on any failure.
B=${1:-build}
. "$(dirname "$0")/lib-count.sh"

for t in "$B"/tests/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	"$t" >"$out" 2>&1
	rc=$? # before any expansion: "$(basename ...)" would reset $? to 0
	tally "${t##*/}" "$rc"
done
# the layering of docs/design.md, on the sources and on these objects
sh "$(dirname "$0")/check-layers.sh" "$B" >"$out" 2>&1
tally check-layers $?

echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/run-one.sh BUILD_DIR NAME - one test of any tier, what
# `make test T=NAME` runs (docs/testing.md).  NAME is, in this order:
#   e2e/X or a name tests/e2e/run.sh knows (a file of tests/e2e/t/, with or
#     without .sh, a test's name or a group: `tests/e2e/run.sh build
#     --list`): tests/e2e/run.sh BUILD_DIR X, every configuration
#   kernel/X or tests/kernel/X.sh: that script alone
#   hostile/X or tests/hostile/X.sh: that script alone
# A script alone prints all its lines, then "<tier>: N passed, N failed"
# as its tier would (tests/lib-count.sh); exits non-zero on any failure.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B
T=${2:-}
if [ -z "$T" ]; then
	echo "usage: tests/run-one.sh BUILD_DIR NAME (make test T=NAME)" >&2
	exit 2
fi

# run_script TIER SCRIPT: the script's lines, then the tier's summary
run_script() {
	. "$ROOT/tests/lib-count.sh"
	local rc
	bash "$2" "$B" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]} # before "$(basename ...)", which would reset it
	tally "$(basename "$2" .sh)" "$rc" >/dev/null
	echo "$1: $skipped skipped"
	echo "$1: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

e2e_knows() {
	local n=${1##*/}
	n=${n%.sh}
	bash "$ROOT/tests/e2e/run.sh" "$B" --list |
		awk -v n="$n" '{ sub(/\.sh:$/, "", $1); sub(/:$/, "", $1) } { for (i = 1; i <= NF; i++) if ($i == n) f = 1 } END { exit !f }'
}

case $T in
e2e/*) exec bash "$ROOT/tests/e2e/run.sh" "$B" "${T#e2e/}" ;;
kernel/*) run_script kernel "$ROOT/tests/kernel/${T#kernel/}.sh" ;;
hostile/*) run_script hostile "$ROOT/tests/hostile/${T#hostile/}.sh" ;;
*)
	if e2e_knows "$T"; then
		exec bash "$ROOT/tests/e2e/run.sh" "$B" "$T"
	elif [ -f "$ROOT/tests/kernel/$T.sh" ] && [ "$T" != run ] && [ "$T" != lib ]; then
		[ -f "$ROOT/tests/hostile/$T.sh" ] &&
			echo "T=$T: tests/kernel/$T.sh (T=hostile/$T runs tests/hostile/$T.sh)" >&2
		run_script kernel "$ROOT/tests/kernel/$T.sh"
	elif [ -f "$ROOT/tests/hostile/$T.sh" ] && [ "$T" != run ] && [ "$T" != lib ]; then
		run_script hostile "$ROOT/tests/hostile/$T.sh"
	else
		echo "T=$T: no such test (tests/e2e/run.sh build --list; tests/kernel/*.sh; tests/hostile/*.sh)" >&2
		exit 2
	fi
	;;
esac

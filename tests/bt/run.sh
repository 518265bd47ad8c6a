#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/bt/run.sh BUILD_DIR [--bpftrace] [--classify] [PATTERN...] - bpftrace's
# own runtime test suite against `utrace bt` (issue 27).
#
# The suite is bpftrace 0.17's tests/runtime (the version Debian 12 ships),
# from `apt-get source bpftrace` (scripts/install-deps.sh test adds the
# deb-src entry and dpkg-dev), unpacked once into $BT_SUITE_CACHE (default
# /var/cache/utrace-bt-suite); it is never copied into this repository.
# Its test programs (tests/testprogs/*.c, tests/testlibs/*.c) are built as
# its CMakeLists.txt builds them (-g -O0, -no-pie, sys/sdt.h) into
# BUILD_DIR/bt-suite, which is the cases' working folder, as the build's
# tests/ folder is bpftrace's.
#
# Each case runs as tests/runtime/engine/runner.py runs it, unchanged but
# for the command: {{BPFTRACE}} (RUN) and `bpftrace -e 'PROG'` (PROG) are
# `utrace bt`, run as BUILD_DIR/bt-suite/bin/bpftrace, a link to utrace,
# so that its process is named bpftrace (or bpftrace itself with --bpftrace, which proves this runner:
# bpftrace passes nearly all).  As the engine does: fields are its parser's
# (each line's words joined by one space), ARCH and MIN/MAX_KERNEL and
# REQUIRES (commands) and REQUIRES_FEATURE decide SKIPs, BEFORE starts and
# is waited for with pidof, the environment is only the engine's variables
# plus ENV, the case has 5 s to print __BPFTRACE_NOTIFY_PROBES_ATTACHED,
# then TIMEOUT seconds, AFTER starts at that line; EXPECT is a regular
# expression searched in stdout+stderr (multi-line mode, not after a
# timeout, as the engine), a non-zero exit fails unless WILL_FAIL.  bpftrace
# 0.17's engine knows EXPECT only (EXPECT_NONE, EXPECT_REGEX came later).
# Regular expressions are Python's there and Perl's here (the same for
# every EXPECT of the suite).
#
# tests/bt/not-applicable lists the cases that need the kernel (kprobes,
# kfunc, BTF, watchpoints, hardware counters ...) with why: SKIP, not run.
# tests/bt/known-fail lists cases of utrace bt that fail, with why: counted
# neither way while they fail, a failure once they pass ("remove it").
# Prints PASS/FAIL/SKIP per case with a reason, then "bt: N passed, N
# failed".  --classify prints, for every case, what the probe types and
# builtins of its program say about it (the source of not-applicable).
# BT_CMD=COMMAND runs the cases with COMMAND instead (BT_CMD=true: each
# case must then fail, which shows that the runner can tell).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B
shift $(($# > 0 ? 1 : 0))
export LC_ALL=C
CACHE=${BT_SUITE_CACHE:-/var/cache/utrace-bt-suite}
SRC=$CACHE/bpftrace-0.17.0
W=$B/bt-suite
NA=$ROOT/tests/bt/not-applicable
KNOWN=$ROOT/tests/bt/known-fail
ATTACH_TIMEOUT=5
DEFAULT_TIMEOUT=5

mode=utrace classify=0 pats=()
for a in "$@"; do
	case $a in
	--bpftrace) mode=bpftrace ;;
	--classify) classify=1 ;;
	*) pats+=("$a") ;;
	esac
done

die() { echo "not ok - $*"; echo "bt: 0 passed, 1 failed"; exit 1; }

# before utrace bt is merged (cmds/bt.c), the tier has nothing to run
if [ $mode = utrace ] && [ $classify = 0 ] && [ -z "${BT_CMD:-}" ] && [ ! -f "$ROOT/cmds/bt.c" ]; then
	echo "UNSUPPORTED: utrace bt not built"
	echo "bt: 0 passed, 0 failed"
	exit 0
fi

[ "$(id -u)" -eq 0 ] || die "the suite must run as root (bpftrace's runner refuses otherwise)"
if [ -n "${BT_CMD:-}" ]; then
	BT=$BT_CMD # another command, e.g. one that does nothing: every case must fail
elif [ $mode = bpftrace ]; then
	BT=$(command -v bpftrace) || die "no bpftrace to run the suite with"
else
	# utrace run by the name bpftrace is utrace bt (docs/utrace-bt.md),
	# its process named bpftrace: the cases' `pidof bpftrace`, `pkill
	# -SIGINT bpftrace` and BEGIN's comm find it as they find bpftrace
	[ -x "$B/utrace" ] || die "$B/utrace is not built"
	mkdir -p "$B/bt-suite/bin" && ln -sfn "$B/utrace" "$B/bt-suite/bin/bpftrace" ||
		die "cannot link $B/bt-suite/bin/bpftrace"
	BT=$B/bt-suite/bin/bpftrace
fi

. "$ROOT/tests/bt/suite.sh"
fetch_suite || die "cannot fetch bpftrace 0.17's source into $CACHE (scripts/install-deps.sh test)"
build_testprogs || die "cannot build the suite's test programs into $W"
[ $classify = 1 ] && { classify_all; exit 0; }

passed=0 failed=0 skipped=0
while IFS=$'\x1f' read -r suite name run prog expect timeout before after kmin kmax reqs envs arch feats willfail; do
	id="$suite.$name"
	if [ ${#pats[@]} -gt 0 ]; then
		m=0
		for p in "${pats[@]}"; do [[ $id == $p ]] && m=1; done
		[ $m = 1 ] || continue
	fi
	verdict=$(run_case </dev/null) # prints "VERDICT reason"
	v=${verdict%% *} why=
	[[ $verdict == *" "* ]] && why=${verdict#* }
	[ "$v" = ARCH ] && continue
	kf=$(awk -F'\t' -v id="$id" '$1 == id { print $2 "\t" $3; exit }' "$KNOWN" 2>/dev/null)
	if [ $mode = utrace ] && [ -n "$kf" ]; then
		if [ "$v" = PASS ]; then
			echo "FAIL $id: passes now: remove it from tests/bt/known-fail"
			failed=$((failed + 1))
			continue
		elif [ "$v" = "${kf%%$'\t'*}" ]; then
			echo "SKIP $id: known-fail: ${kf#*$'\t'}"
			skipped=$((skipped + 1))
			continue
		fi
	fi
	echo "$v $id${why:+: $why}"
	case $v in
	PASS) passed=$((passed + 1)) ;;
	SKIP) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
done < <(suite_cases)

echo "bt: $skipped skipped (not applicable, unmet requirements, known-fail)"
echo "bt: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

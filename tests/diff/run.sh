#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/diff/run.sh BUILD_DIR - the differential tier (issue 22): the
# same recordings go through the tools users compare utrace with, and
# their figures must be utrace's own:
#   pprof.sh      go tool pprof -top/-list/-disasm on dump --pprof files
#   tracecmd.sh   trace-cmd report and report --profile on converted files
#   perf.sh       perf report on the same binary sampled by perf
#   perfetto.sh   protoc's decoding of dump --perfetto files
#   kshark.sh     KernelShark's libkshark loading convert's files headless
#
# Runs every tests/diff/*.sh but itself and lib.sh as "bash SCRIPT
# BUILD_DIR".  Each prints "ok - WHAT", "not ok - WHAT" or "UNSUPPORTED:
# WHY" (a peer or a kernel feature missing: a skip).  Prints the failing
# and unsupported lines, then "diff: N skipped" and last "diff: N passed,
# N failed"; exits non-zero on any failure.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B

. "$ROOT/tests/lib-count.sh"

for t in "$ROOT"/tests/diff/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	case $name in run | lib) continue ;; esac
	[ -n "${DIFF_ONLY:-}" ] && [ "$name" != "$DIFF_ONLY" ] && continue
	bash "$t" "$B" >"$out" 2>&1
	tally "$name" $?
done

echo "diff: $skipped skipped"
echo "diff: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

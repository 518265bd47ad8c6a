#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/killed.sh - a command that dies of a signal (issue 21,
# item 10): utrace record ends with the same status and its summary says
# which signal killed the command.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

build killed_crash killed_crash.c gcc -O2 || exit 1
for how in "segv 11 Segmentation fault" "abort 6 Aborted"; do
	read -r arg sig name <<<"$how"
	run_plain "$W/a" "$W/killed_crash" "$arg" 2>/dev/null
	check "killed_crash $arg dies of signal $sig untraced" grep -qx $((128 + sig)) "$W/a.rc"
	while read -r mode; do
		# shellcheck disable=SC2086 # a mode is a list of options
		run_traced "$W/b" $mode -- "$W/killed_crash" "$arg" 2>/dev/null
		same_run "killed_crash $arg: the same status traced, $mode" "$W/a" "$W/b"
		check "the summary says the command was killed by signal $sig ($mode)" \
			grep -q "killed_crash was killed by signal $sig ($name)" "$W/b.rec"
	done < <(each_mode)
done

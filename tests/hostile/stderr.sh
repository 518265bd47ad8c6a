#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/stderr.sh - the runtime's messages go to the recorder,
# never to the program's descriptors (issue 21, item 5): a program that
# points fd 2 at its own log and lowers RLIMIT_AS, so that its threads'
# trace buffers cannot be mapped, finds none of utrace's lines in its log,
# while the recorder's stderr says what happened.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

for cc in gcc clang; do
	command -v $cc >/dev/null || { unsupported "no $cc"; continue; }
	for opt in -O0 -O2; do
		build stderr_log stderr_log.c $cc $opt || continue
		run_plain "$W/a" "$W/stderr_log" "$W/a.log"
		check "stderr_log ($cc $opt): untraced, its log is its own" \
			grep -q "^0 foreign lines" "$W/a.out"
		while read -r mode; do
			# shellcheck disable=SC2086 # a mode is a list of options
			run_traced "$W/b" $mode -- "$W/stderr_log" "$W/b.log"
			same_run "stderr_log ($cc $opt): nothing of utrace in its log, $mode" "$W/a" "$W/b" ||
				sed 's/^/#   its log: /' "$W/b.log" | head -5
			check "stderr_log ($cc $opt): the recorder says a thread is not traced ($mode)" \
				grep -q "^utrace record: pid [0-9]*: cannot map a .*this thread is not traced" \
				"$W/b.rec"
		done < <(each_mode)
	done
done

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/fork.sh - fork children under both tracers (issue 21,
# items 8 and 11): a shell whose own getenv is traced forks 200 times and
# every record stays readable; an allocator that holds its lock across
# fork does not deadlock the child; fork, vfork + exec and threads of a
# millisecond behave as untraced, with every record readable.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

# undamaged WHAT DAT: report reads every record of DAT
undamaged() {
	if ! "$U" report -i "$2" >/dev/null 2>"$W/report.err"; then
		notok "$1: report failed"
		sed 's/^/#   /' "$W/report.err" | tail -3
	elif grep -qE 'cut short|could not be read' "$W/report.err"; then
		notok "$1"
		grep -E 'cut short|could not be read' "$W/report.err" | sed 's/^/#   /'
	else
		ok "$1"
	fi
}

# A shell: bash exports its own getenv and malloc, entry-patched here.
loop='for i in $(seq 200); do /bin/true; done; echo done'
run_plain "$W/sh0" bash -c "$loop"
while read -r mode; do
	# shellcheck disable=SC2086 # a mode is a list of options
	run_traced "$W/sh1" $mode -- bash -c "$loop"
	same_run "bash forking 200 times, $mode" "$W/sh0" "$W/sh1" &&
		undamaged "bash forking 200 times, $mode: every record readable" "$W/sh1.dat"
done < <(each_mode)

for cc in gcc clang; do
	command -v "$cc" >/dev/null || { unsupported "$cc not installed"; continue; }
	for opt in -O0 -O2; do
		build atfork forkclone_atfork.c "$cc" "$opt" || continue
		build fork forkclone_fork.c "$cc" "$opt" || continue
		run_plain "$W/a0" "$W/atfork"
		run_plain "$W/f0" "$W/fork"
		while read -r mode; do
			# shellcheck disable=SC2086
			run_traced "$W/a1" $mode -- "$W/atfork"
			same_run "allocator locked across fork, $cc $opt, $mode" "$W/a0" "$W/a1"
			# shellcheck disable=SC2086
			run_traced "$W/f1" $mode -- "$W/fork"
			same_run "fork, vfork + exec, 1 ms threads, $cc $opt, $mode" "$W/f0" "$W/f1" &&
				undamaged "fork, vfork + exec, 1 ms threads, $cc $opt, $mode: every record readable" "$W/f1.dat"
		done < <(each_mode)
	done
done

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/clone.sh - threads made by clone() without CLONE_SETTLS
# (issue 21, item 2): they share their creator's TLS, where the tracers
# keep their per-thread state.  Output and exit status as untraced, in
# both tracers, and the creator, which goes on being traced, has every
# call it made recorded (series() calls step() 300000 times, then
# it waits for each thread).  Such threads that longjmp leave their
# creator's hooked frames alone.  Children made by clone() without
# CLONE_VM leave their parent's buffer: its count is exact..
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

# records DAT: the records of the buffers of DAT (report --stat's total)
records() {
	"$U" report --stat -i "$1" 2>/dev/null | sed -n 's/^# total: .*, \([0-9]*\) records,.*/\1/p'
}

for cc in gcc clang; do
	command -v "$cc" >/dev/null || { unsupported "$cc not installed"; continue; }
	for opt in -O0 -O2; do
		build clone forkclone_clone.c "$cc" "$opt" || continue
		build clonejmp forkclone_clonejmp.c "$cc" "$opt" || continue
		run_plain "$W/c0" "$W/clone"
		run_plain "$W/j0" "$W/clonejmp"
		while read -r mode; do
			# shellcheck disable=SC2086 # a mode is a list of options
			run_traced "$W/j1" $mode -- "$W/clonejmp"
			same_run "clone() threads that longjmp under a pthread's frames, $cc $opt, $mode" \
				"$W/j0" "$W/j1"
			# shellcheck disable=SC2086 # the count is of its own calls
			run_traced "$W/c1" $mode --no-libcall -- "$W/clone"
			same_run "clone() threads on their creator's TLS, $cc $opt, $mode" "$W/c0" "$W/c1" ||
				continue
			# main, series, 300000 x step, 3 x wait_gone: a record each, two with a graph
			want=300005
			[ "$mode" = "-p function" ] || want=600010
			got=$(records "$W/c1.dat")
			check "the creator's calls all recorded, $cc $opt, $mode (got $got, want $want)" \
				[ "$got" = "$want" ]
		done < <(each_mode)
	done
done

for opt in -O0 -O2; do
	build clonefork forkclone_clonefork.c gcc "$opt" || continue
	run_plain "$W/f0" "$W/clonefork"
	while read -r mode; do
		# shellcheck disable=SC2086 # a mode is a list of options
		run_traced "$W/f1" $mode --no-libcall -- "$W/clonefork" # its own calls counted
		same_run "clone() children without CLONE_VM, gcc $opt, $mode" "$W/f0" "$W/f1" || continue
		# main, 10 x (work + 100000 x mix): a record each, two with a graph
		want=1000011
		[ "$mode" = "-p function" ] || want=2000022
		got=$(records "$W/f1.dat")
		check "their parent's calls exactly, gcc $opt, $mode (got $got, want $want)" \
			[ "$got" = "$want" ]
	done < <(each_mode)
done

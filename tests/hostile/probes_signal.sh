#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/probes_signal.sh - return probes on a function that a
# 10 kHz SIGALRM handler calls (handler_work) and on the function it
# interrupts (spin_step): each handler's return-probe frame nests inside
# the interrupted call's (runtime/inproc_probes.c takes a frame's slot before
# it fills it, as the ring buffer's nested writers do).  The program
# behaves as untraced, and each probe records exactly one hit per call,
# as counted by the program itself; gcc and clang, -O0 and -O2, with no
# tracer and under function_graph.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

# counts OUT: "STEPS HANDLED" from the program's own line on OUT.err
counts() {
	sed -n 's/^steps \([0-9]*\) handled \([0-9]*\)$/\1 \2/p' "$1.err"
}

for cc in gcc clang; do
	command -v "$cc" >/dev/null || { echo "# no $cc"; continue; }
	for opt in -O0 -O2; do
		build "ps$cc$opt" probes_signal.c "$cc" "$opt" || continue
		run_plain "$W/a" "$W/ps$cc$opt"
		for mode in "-p nop" "-p function_graph"; do
			what="$cc $opt $mode, r: on handler_work and spin_step"
			# shellcheck disable=SC2086 # a mode is a list of options
			run_traced "$W/b" $mode --probe 'r:pr handler_work' --probe 'r:psr spin_step' \
				-- "$W/ps$cc$opt"
			same_run "$what: the program as untraced" "$W/a" "$W/b" || continue
			read -r steps handled < <(counts "$W/b")
			"$U" report -i "$W/b.dat" >"$W/b.rep" 2>&1
			pr=$(grep -c ' pr: ' "$W/b.rep")
			psr=$(grep -c ' psr: ' "$W/b.rep")
			if [ -n "$steps" ] && [ "$pr" = "$handled" ] && [ "$psr" = "$steps" ]; then
				ok "$what: one hit per call ($handled, $steps)"
			else
				notok "$what: one hit per call"
				echo "#   pr $pr of ${handled:-?} calls, psr $psr of ${steps:-?}"
			fi
		done
	done
done

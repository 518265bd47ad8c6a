#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/fpatch_plan.sh - the start-up analysis (the entry plan) of
# a binary built without utrace's flags is made once per binary, by its
# build id, for every process of the recording, and only for what the
# filter selects (issue 21, item 11): gcc runs cc1, as and collect2 as
# processes of their own, each planned again before, whatever -l said.
#   - a chain of three processes (chain, a copy of it at another path,
#     chain again) under `-l main -l work`: one plan (the summary says so;
#     one notice), two processes reuse it, the notice says the other
#     functions were not planned;
#   - the same output and exit status as untraced, and exactly one main
#     and one work entry per process in the trace;
#   - without -l, every function is planned (a plan is still made once).
# gcc -O0 and -O2, clang -O2; -p function and function_graph.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

# count_in REPORT FUNC: entries of FUNC in a report of either tracer
count_in() {
	grep -cE " $2 <-| $2\(\)" "$1"
}

for cfg in "gcc -O0" "gcc -O2" "clang -O2"; do
	read -r cc opt <<<"$cfg"
	command -v "$cc" >/dev/null || { echo "# no $cc"; continue; }
	name=chain_${cc}${opt}
	# built without the flags: its entries are what utrace plans
	"$cc" "$opt" -g -o "$W/$name" "$HP/fpatch_plan_chain.c" 2>"$W/$name.build" ||
		{ notok "build $name"; continue; }
	cp "$W/$name" "$W/$name.copy"
	cmd=("$W/$name" "$W/$name.copy" "$W/$name")
	run_plain "$W/$name.u" "${cmd[@]}"
	while read -r mode; do
		# shellcheck disable=SC2086 # a mode is a list of options
		run_traced "$W/$name.t" $mode -l main -l work -- "${cmd[@]}"
		same_run "$name $mode -l main -l work: output and exit status as untraced" \
			"$W/$name.u" "$W/$name.t"
		plans=$(grep -c "has no call sites" "$W/$name.t.err")
		check "$name $mode: one plan for the three processes of one binary at two paths ($plans notices)" \
			test "$plans" -eq 1
		check "$name $mode: the summary says one plan, reused by two processes ($(grep "planned once" "$W/$name.t.rec"))" \
			grep -q "^utrace record: 1 object without call sites planned once each; 2 more processes used a plan made already$" "$W/$name.t.rec"
		check "$name $mode: only the 2 selected functions were planned ($(grep -o 'call sites: .*' "$W/$name.t.err"))" \
			grep -q "has no call sites: 2 of 2 functions patched at their entry; [1-9][0-9]* more not selected by the filter, not planned$" "$W/$name.t.err"
		"$U" report -i "$W/$name.t.dat" >"$W/$name.t.txt" 2>/dev/null
		m=$(count_in "$W/$name.t.txt" main)
		w=$(count_in "$W/$name.t.txt" work)
		check "$name $mode: main and work entered once in each of the 3 processes ($m, $w)" \
			test "$m" -eq 3 -a "$w" -eq 3
	done < <(printf '%s\n' "-p function" "-p function_graph") # the tracers that patch entries
	run_traced "$W/$name.a" -p function -- "${cmd[@]}"
	same_run "$name -p function, no filter: output and exit status as untraced" "$W/$name.u" "$W/$name.a"
	check "$name, no filter: every function planned, once ($(grep -o 'call sites: .*' "$W/$name.a.err"))" \
		test "$(grep -c "has no call sites: [0-9]* of [0-9]* functions patched at their entry" "$W/$name.a.err")" -eq 1
done

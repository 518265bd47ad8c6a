# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-signal.sh - signal.c: SIGUSR1 raised 3 traced frames
# deep; a 200 us SIGALRM timer while spinning through traced calls; SIGUSR2
# on a sigaltstack
# Must hold: handlers traced (on_alrm 50+ times), on_usr1 nested deeper than
# the interrupted inner(), alt_recurse 11 times, braces balance.

e2e_test "signal -- signal"

check_signal() {
	local inner usr1
	expect_balanced "$CFG signal braces balance"
	inner=$(fv inner mind)
	usr1=$(fv on_usr1 mind)
	if [ -n "$inner" ] && [ -n "$usr1" ] && [ "$usr1" -gt "$inner" ]; then
		ok "$CFG signal handler nested in the interrupted inner()"
	else
		nok "$CFG signal handler nested in the interrupted inner()" "inner at depth '$inner', on_usr1 at '$usr1'" "report: $REP"
	fi
	expect_func "$CFG signal SIGUSR1 handler traced" on_usr1 count 1
	# Every one of the 100+ SIGALRMs the program handled (it writes how
	# many to signal.alarms) is in the graph, nothing lost: a handler that
	# interrupts the tracer itself writes into a nested context, as the
	# kernel's per-context recursion levels allow an interrupt to trace.
	local alrm
	alrm=$(cat "$RUN/signal.alarms" 2>/dev/null)
	expect_func "$CFG signal every SIGALRM handler traced (${alrm:-?})" on_alrm count "${alrm:-0}"
	expect_func "$CFG signal every SIGALRM handler's calls traced" handler_leaf count $((${alrm:-0} + 2))
	expect_nolost "$CFG signal nothing lost at 10 kHz"
	function_run signal
	alrm=$(cat "$RUN/signal.alarms" 2>/dev/null)
	if [ -n "$alrm" ] && [ "$(fcount on_alrm "$RES/fn.facts")" = "$alrm" ] &&
		! grep -qiE '[1-9][0-9]* (events? )?lost' "$RES/fn.err" "$RES/fn.rep.err"; then
		ok "$CFG signal -p function: every SIGALRM handler traced, nothing lost"
	else
		nok "$CFG signal -p function: every SIGALRM handler traced, nothing lost" \
			"on_alrm $(fcount on_alrm "$RES/fn.facts") times, the program handled ${alrm:-?}" \
			"$(grep -hi lost "$RES/fn.err" "$RES/fn.rep.err" | head -3)"
	fi
	expect_func "$CFG signal sigaltstack handler traced" on_usr2 count 1
	expect_func "$CFG signal recursion on the alternate stack" alt_recurse count 11
	expect_func "$CFG signal handler_work from the synchronous handlers" handler_work mincount 2
}

# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-threads.sh - threads.c: 4 pthreads, worker -> work<i> ->
# leaf x 200
# Must hold: work0..3 once each under worker, 800 leaf calls; braces balance
# per task; with -p function each work<i> ran in its own tid, none in
# main's.

e2e_test "threads -- threads"

check_threads() {
	local i w tids="" bad="" main_tid
	expect_balanced "$CFG threads braces balance per task"
	for i in 0 1 2 3; do
		expect_func "$CFG threads work$i under worker" work$i count 1 depth 1
	done
	expect_func "$CFG threads 800 leaf calls" leaf count 800 depth 2
	# -p function names the tid on every line
	function_run threads
	FACTS=$RES/fn.facts REP=$RES/fn.txt
	main_tid=$(ftids main)
	for i in 0 1 2 3; do
		w=$(ftids work$i)
		case $w in
		"" | *,*) bad="$bad work$i ran in tids '$w';" ;;
		"$main_tid") bad="$bad work$i ran in main's tid $w;" ;;
		*) case " $tids " in *" $w "*) bad="$bad work$i shares tid $w;" ;; esac ;;
		esac
		tids="$tids $w"
	done
	[ -z "$main_tid" ] && bad="$bad main not in the function trace;"
	if [ -z "$bad" ]; then
		ok "$CFG threads 4 distinct tids (-p function)"
	else
		nok "$CFG threads 4 distinct tids (-p function)" "$bad" "report: $REP"
	fi
	FACTS=$RES/facts REP=$RES/rep.txt
	# several threads: the task column by default; -O nofuncgraph-proc
	# takes it away
	count_lines "$CFG threads the task column by default" '^# CPU  TASK/PID ' 1
	local one
	one=$("$UTRACE" report --stat -i "$RES/trace.dat" 2>/dev/null | awk '!/^#/ { sub(/.*-/, "", $1); print $1; exit }')
	"$UTRACE" report -i "$RES/trace.dat" --tid "$one" 2>/dev/null | head -5 >"$RES/onetid.txt"
	t "$([ -n "$one" ] && grep -q '^# CPU  DURATION' "$RES/onetid.txt" && ! grep -q 'TASK/PID' "$RES/onetid.txt"; echo $?)" \
		"$CFG threads --tid of one thread: no task column" "$(cat "$RES/onetid.txt")"
	"$UTRACE" report -i "$RES/trace.dat" -O nofuncgraph-proc 2>/dev/null | head -3 >"$RES/noproc.txt"
	t "$(! grep -q 'TASK/PID' "$RES/noproc.txt" && grep -q '^# CPU  DURATION' "$RES/noproc.txt"; echo $?)" \
		"$CFG threads -O nofuncgraph-proc: no task column" "$(cat "$RES/noproc.txt")"
}

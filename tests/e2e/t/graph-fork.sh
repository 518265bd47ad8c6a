# SPDX-License-Identifier: MIT
#
# tests/e2e/t/graph-fork.sh - fork.c: fork() inside traced frames,
# child_work in the child, exit 5; then posix_spawn(/bin/true)
# Must hold: child_work, parent_work present, no task leaves an entry open;
# with -p function child_work/child_leaf under one pid, parent_work under
# main's pid, and the two differ.

e2e_test "fork -- fork"

check_fork() {
	local c p m bad=""
	expect_balanced "$CFG fork no entry left open" open-ok
	expect_func "$CFG fork child_work traced" child_work count 1
	expect_func "$CFG fork parent_work traced" parent_work count 1
	expect_func "$CFG fork child_leaf traced" child_leaf count 2
	function_run fork
	FACTS=$RES/fn.facts REP=$RES/fn.txt
	c=$(ftids child_work)
	p=$(ftids parent_work)
	m=$(ftids main)
	case $c in "" | *,*) bad="$bad child_work in tids '$c';" ;; esac
	case $p in "" | *,*) bad="$bad parent_work in tids '$p';" ;; esac
	[ "$c" = "$p" ] && bad="$bad child and parent work in the same pid $c;"
	[ "$(ftids child_leaf)" = "$c" ] || bad="$bad child_leaf in '$(ftids child_leaf)', child_work in '$c';"
	[ "$m" = "$p" ] || bad="$bad main in '$m', parent_work in '$p';"
	if [ -z "$bad" ]; then
		ok "$CFG fork child's functions under the child's pid (-p function)"
	else
		nok "$CFG fork child's functions under the child's pid (-p function)" "$bad" "report: $REP"
	fi
	FACTS=$RES/facts REP=$RES/rep.txt
}

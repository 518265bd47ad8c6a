# SPDX-License-Identifier: MIT
#
# tests/e2e/lib.sh - the helpers the end-to-end tests share, sourced by
# tests/e2e/run.sh before the tests (tests/e2e/t/*.sh).  A test reads the
# report of its run through the facts graph.awk wrote ($FACTS, $REP, $RES
# set by the runner for the test being checked) and says what it found
# with ok / nok / t, one line each: "ok - WHAT" or "not ok - WHAT" with
# "#" detail lines.  The runner's variables: $CFG (the configuration),
# $BIN (its programs), $RUN (their working directory), $UTRACE, $OUT,
# $E2E, $PROGS, $GOLDEN, $TMO, $MAXREP (docs/testing.md).

# ---------------------------------------------------------------- results

ok() { echo "ok - $*"; }

nok() {
	echo "not ok - $1"
	shift
	local l
	for l in "$@"; do
		[ -n "$l" ] && printf '%s\n' "$l" | sed 's/^/#   /'
	done
	return 0
}

# t COND-STATUS "what" [detail...]: ok if the previous command succeeded
t() {
	local st=$1
	shift
	if [ "$st" -eq 0 ]; then ok "$1"; else nok "$@"; fi
}

# ---------------------------------------------------------------- configurations

config_cc() {
	case $1 in
	gcc-*) echo gcc ;;
	clang-*) echo clang ;;
	esac
}

config_cxx() {
	case $1 in
	gcc-*) echo g++ ;;
	clang-*) echo clang++ ;;
	esac
}

config_opt() {
	case $1 in
	*-O0-*) echo -O0 ;;
	*-O2-*) echo -O2 ;;
	*-O1-*) echo -O1 ;;
	*-O3-*) echo -O3 ;;
	*-Os-*) echo -Os ;;
	esac
}

# ---------------------------------------------------------------- facts

# The facts of the report being checked (graph.awk output) are in $FACTS.
fv() { # fv NAME FIELD -> value of FIELD in "func NAME ..." (empty if absent)
	awk -v n="$1" -v f="$2" '$1 == "func" && $2 == n { for (i = 3; i < NF; i += 2) if ($i == f) print $(i + 1); exit }' "$FACTS"
}

fact() { awk -v k="$1" '$1 == k { print $2; exit }' "$FACTS"; }

names() { awk '$1 == "func" { print $2 }' "$FACTS" | sort | tr '\n' ' ' | sed 's/ $//'; }

has_func() { [ -n "$(fv "$1" count)" ]; }

ftids() { awk -v n="$1" '$1 == "ftid" && $2 == n { print $3; exit }' "$FACTS"; }

# fcount NAME FACTS -> calls of NAME the function tracer recorded
fcount() { awk -v n="$1" '$1 == "fcall" && $2 == n { c += $NF } END { print c + 0 }' "$2"; }

facts_detail() { sed -n '1,40p' "$FACTS"; }

# expect_func WHAT NAME [count N|mincount N|depth D|mind D|maxd D]...
expect_func() {
	local what=$1 name=$2
	shift 2
	local c md xd why=""
	c=$(fv "$name" count)
	md=$(fv "$name" mind)
	xd=$(fv "$name" maxd)
	if [ -z "$c" ]; then
		why="$name() not in the report"
	else
		while [ $# -ge 2 ]; do
			case $1 in
			count) [ "$c" -eq "$2" ] || why="$why $name: $c calls, expected $2;" ;;
			mincount) [ "$c" -ge "$2" ] || why="$why $name: $c calls, expected >= $2;" ;;
			depth) [ "$md" -eq "$2" ] && [ "$xd" -eq "$2" ] || why="$why $name at depth $md..$xd, expected $2;" ;;
			mind) [ "$md" -eq "$2" ] || why="$why $name min depth $md, expected $2;" ;;
			maxd) [ "$xd" -eq "$2" ] || why="$why $name max depth $xd, expected $2;" ;;
			esac
			shift 2
		done
	fi
	if [ -z "$why" ]; then ok "$what"; else nok "$what" "$why" "report: $REP"; fi
}

expect_absent() { # expect_absent WHAT NAME...
	local what=$1 n bad=""
	shift
	for n in "$@"; do has_func "$n" && bad="$bad $n"; done
	if [ -z "$bad" ]; then ok "$what"; else nok "$what" "present but should not be:$bad" "report: $REP"; fi
}

expect_names() { # expect_names WHAT "sorted space separated names"
	local got
	got=$(names)
	if [ "$got" = "$2" ]; then ok "$1"; else nok "$1" "functions in the graph: '$got', expected '$2'" "report: $REP"; fi
}

# Every task's braces balance: no entry left open, no exit without its
# entry, indentation agrees with the nesting.  $1 = what, $2 = "open-ok"
# to allow entries left open (exec, exit() and signal deaths never return),
# "noindent" to ignore the indentation.
expect_balanced() {
	local what=$1 allow=${2:-} bad
	bad=$(awk -v allow="$allow" '$1 == "task" {
		open = $10; unm = $12; nest = $14; ind = $16
		if (allow == "noindent") ind = 0
		if ((open > 0 && allow != "open-ok") || unm > 0 || nest > 0 || ind > 0) print
	}' "$FACTS")
	if [ "$(fact lines)" = 0 ]; then
		nok "$what" "no function_graph lines in the report" "report: $REP"
	elif [ -z "$bad" ]; then
		ok "$what"
	else
		nok "$what" "$bad" "report: $REP"
	fi
}

expect_nolost() {
	local l e
	l=$(fact lost)
	e=$(grep -hiE '[1-9][0-9]* (events? )?lost|\[LOST|lost [1-9]' "$RES/rep.err" "$RES/t.err" 2>/dev/null | head -3)
	if [ "${l:-0}" = 0 ] && [ -z "$e" ]; then
		ok "$1"
	else
		nok "$1" "${l:-0} lines of the report say events were lost" "$e" "report: $REP"
	fi
}

# ---------------------------------------------------------------- golden

# Masks what changes from run to run: the CPU column, durations and their
# markers (+ ! # * @ $), timestamps, pids.  Keeps names and nesting.
mask() {
	awk '
	/^ *[0-9]+\) / && index($0, "|") {
		i = index($0, "|"); pre = substr($0, 1, i - 1); rest = substr($0, i + 1)
		d = (pre ~ /[0-9]\.[0-9]+ *(us|ms|s)/) ? "DUR" : "   "
		print "N) " d " |" rest
		next
	}
	{ gsub(/[0-9]+/, "N"); print }' "$@"
}

check_golden() { # check_golden NAME
	local g=$GOLDEN/$1.txt
	mask "$REP" >"$RES/masked.txt"
	if [ "${UTRACE_GOLDEN_UPDATE:-0}" = 1 ] && [ "$CFG" = "$GOLDEN_CFG" ]; then
		cp "$RES/masked.txt" "$g"
		ok "$CFG $1 golden (updated $g)"
	elif [ ! -f "$g" ]; then
		nok "$CFG $1 golden" "no $g (run with UTRACE_GOLDEN_UPDATE=1)"
	elif diff -u "$g" "$RES/masked.txt" >"$RES/golden.diff"; then
		ok "$CFG $1 golden"
	else
		nok "$CFG $1 golden" "$(head -30 "$RES/golden.diff")" "report: $REP"
	fi
}

# check_golden_raw NAME FILE: FILE as it is (nothing varies) against the golden
check_golden_raw() {
	local g=$GOLDEN/$1.txt
	if [ "${UTRACE_GOLDEN_UPDATE:-0}" = 1 ] && [ "$CFG" = "$GOLDEN_CFG" ]; then
		cp "$2" "$g"
		ok "$CFG $1 golden (updated $g)"
	elif [ ! -f "$g" ]; then
		nok "$CFG $1 golden" "no $g (run with UTRACE_GOLDEN_UPDATE=1)"
	elif diff -u "$g" "$2" >"$RES/golden.diff"; then
		ok "$CFG $1 golden"
	else
		nok "$CFG $1 golden" "$(head -30 "$RES/golden.diff")"
	fi
}

# ---------------------------------------------------------------- reports

# function tracer run of the same program: $1 = test, rest = program args
function_run() {
	local prog=$1
	shift
	# shellcheck disable=SC2086
	(cd "$RUN" && { timeout -k 5 "$TMO" "$UTRACE" record -p function ${FN_OPTS:-} -o "$RES/fn.dat" -- "$BIN/$prog" "$@" \
		>"$RES/fn.out" 2>"$RES/fn.err" </dev/null; } 2>/dev/null)
	timeout -k 5 "$TMO" "$UTRACE" report -i "$RES/fn.dat" 2>"$RES/fn.rep.err" | head -c $MAXREP >"$RES/fn.txt"
	awk -f "$E2E/graph.awk" "$RES/fn.txt" >"$RES/fn.facts"
}

# count_lines WHAT REGEX N: the report has N lines matching REGEX
count_lines() {
	local n
	n=$(grep -cE "$2" "$REP")
	if [ "$n" = "$3" ]; then ok "$1"; else nok "$1" "$n lines match '$2', expected $3" "report: $REP"; fi
}

# funcgraph-args / funcgraph-retval: the values are the ones the program
# printed; what no integer register holds is "?", the seventh argument on
# is "...", a void or floating-point return has no " = ".
expect_line() { # expect_line WHAT EXTENDED-REGEX
	if grep -Eq "$2" "$REP"; then ok "$1"; else nok "$1" "no line matching '$2'" "report: $REP"; fi
}

# report --hist of this test's recording into $RES/hist.txt; 0 if it worked
hist_report() {
	timeout -k 5 "$TMO" "$UTRACE" report --hist -i "$RES/trace.dat" >"$RES/hist.txt" 2>"$RES/hist.err"
}

# ---------------------------------------------------------------- in-process probes

# probe_run NAME PROG [record args...]: runs PROG untraced and under
# `utrace record ARGS`, compares the outputs; leaves $RES/rep.txt.
probe_run() {
	local name=$1 prog=$2 ust tst
	shift 2
	TEST=$name
	RES=$OUT/$CFG/res/$name
	rm -rf "$RES"
	mkdir -p "$RES"
	if [ ! -x "$BIN/$prog" ]; then
		nok "$CFG $name run" "$BIN/$prog was not built"
		return 1
	fi
	(cd "$RUN" && timeout -k 5 "$TMO" "$BIN/$prog" >"$RES/u.out" 2>"$RES/u.err" </dev/null)
	ust=$?
	(cd "$RUN" && timeout -k 5 "$TMO" "$UTRACE" record "$@" -o "$RES/trace.dat" -- "$BIN/$prog" \
		>"$RES/t.out" 2>"$RES/t.err" </dev/null)
	tst=$?
	t "$([ "$ust" = "$tst" ] && cmp -s "$RES/u.out" "$RES/t.out"; echo $?)" \
		"$CFG $name same status and stdout as untraced" "status $ust/$tst" \
		"$(diff "$RES/u.out" "$RES/t.out" | head -5)" "$(grep -v '^utrace record: [0-9]* records' "$RES/t.err" | head -5)"
	timeout -k 5 "$TMO" "$UTRACE" report -p function -i "$RES/trace.dat" >"$RES/rep.txt" 2>"$RES/rep.err" ||
		timeout -k 5 "$TMO" "$UTRACE" report -i "$RES/trace.dat" >"$RES/rep.txt" 2>"$RES/rep.err"
	return 0
}

# res_begin NAME PROG: TEST and a fresh $RES for NAME; false (said) if
# PROG of $BIN was not built
res_begin() {
	TEST=$1
	RES=$OUT/$CFG/res/$1
	rm -rf "$RES"
	mkdir -p "$RES"
	[ -x "$BIN/$2" ] && return 0
	nok "$CFG $1 run" "$BIN/$2 was not built (see $OUT/build.log)"
	return 1
}

# err_as_untraced TEST TAG: $RES/TAG.t.err (traced), utrace's own lines
# and --dump-on-crash's dump (last, once the program is gone) aside, is
# $RES/TAG.u.err (untraced)
err_as_untraced() {
	awk '/^utrace: pid [0-9]+ died of / { exit } !/^utrace record:/' "$RES/$2.t.err" \
		>"$RES/$2.t.err.prog"
	t "$(cmp -s "$RES/$2.u.err" "$RES/$2.t.err.prog"; echo $?)" "$CFG $1" \
		"$(diff "$RES/$2.u.err" "$RES/$2.t.err.prog" | head -5)"
}

# The "NAME=VALUE ..." of each EVENT line of the report, quotes dropped.
probe_vals() { sed -n "s/.* $1: ([^)]*)\(.*\)/\1/p" "$RES/rep.txt" | sed 's/ *\*\/ *$//; s/"//g; s/^ //'; }

# offsets of every instruction of FUNC in the file $2 (within its size);
# gcc's five 1-byte NOPs of the call site are one NOP at run time
probe_offsets() {
	local size
	size=$(nm -S --defined-only "$2" | awk -v f="$1" '$4 == f { print strtonum("0x" $2); exit }')
	objdump -d --no-show-raw-insn "$2" | awk -v f="<$1>:" -v size="${size:-0}" '
		$2 == f { on = 1; base = strtonum("0x" $1); next }
		on && /^$/ { exit }
		on && /^ *[0-9a-f]+:/ { a = $1; sub(":", "", a); o = strtonum("0x" a) - base
			if (o < size && (o == 0 || o >= 5 || $2 != "nop")) print o }'
}

# ---------------------------------------------------------------- programs built without the flags

# anybin_run NAME [record args --] CMD...: untraced and traced runs of CMD
# in $RES (u.*, t.*), the report and its facts; the status check.
anybin_run() {
	local name=$1 ust tst
	shift
	TEST=$name
	RES=$OUT/$CFG/res/$name
	REP=$RES/rep.txt
	FACTS=$RES/facts
	rm -rf "$RES"
	mkdir -p "$RES"
	(cd "$RUN" && timeout -k 5 "$TMO" "$@" >"$RES/u.out" 2>"$RES/u.err" </dev/null)
	ust=$?
	# shellcheck disable=SC2086 # a word list on purpose
	(cd "$RUN" && timeout -k 5 "$TMO" "$UTRACE" record ${ANYBIN_ROPTS:-} -o "$RES/trace.dat" -- "$@" \
		>"$RES/t.out" 2>"$RES/t.err" </dev/null)
	tst=$?
	# without the recorder's lines (the runtime's go through the recorder)
	grep -v -e '^utrace record:' "$RES/t.err" >"$RES/t.err.prog"
	t "$([ "$ust" = "$tst" ] && cmp -s "$RES/u.out" "$RES/t.out" &&
		cmp -s "$RES/u.err" "$RES/t.err.prog"; echo $?)" \
		"$CFG $name same status, stdout and stderr as untraced" "status $ust/$tst" \
		"$(diff "$RES/u.out" "$RES/t.out" | head -5)" "$(head -5 "$RES/t.err")"
	timeout -k 5 "$TMO" "$UTRACE" report -O funcgraph-proc -i "$RES/trace.dat" 2>"$RES/rep.err" |
		head -c $MAXREP >"$REP"
	awk -f "$E2E/graph.awk" "$REP" >"$FACTS"
}

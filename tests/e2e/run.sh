#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/e2e/run.sh BUILD_DIR - the end-to-end tier (docs/testing.md).
#
# For every compiler configuration in the matrix
#   {gcc, clang} x {-O0, -O2} x {patchable (utrace cflags), mcount (gcc only)}
# builds tests/progs/ into tests/out/<config>/bin/, runs each program
# untraced and under `utrace record`, and checks that the tracer did not
# disturb it (same stdout, same stderr, same exit status or terminating
# signal) and that `utrace report` shows what must be there.  Then the
# filter tests (-l, -n, -g, --max-graph-depth, -p, --overwrite, --thresh),
# utrace latency, and the tool's own error handling.
#
# Prints "ok - <config> <test> <what>" / "not ok - ..." (with "#" detail
# lines after a failure), and last "e2e: N passed, N failed".  Exits 1 if
# anything failed.
#
# Environment:
#   UTRACE_E2E_CONFIGS   configurations to run (default: all six)
#   UTRACE_E2E_TESTS     tests to run (default: all), e.g. "simple fib flt-l"
#   UTRACE_E2E_JOBS      parallel jobs for building and running (default 2)
#   UTRACE_E2E_TIMEOUT   seconds one program or report may take (default 60)
#   UTRACE_E2E_OUT       output directory (default tests/out)
#   UTRACE_E2E_SNAPSHOT=0  use BUILD_DIR/utrace in place instead of a copy
#                        (the copy keeps a run consistent while make runs)
#   UTRACE_GOLDEN_UPDATE=1  rewrite tests/e2e/golden/*.txt from the first
#                        configuration's reports instead of comparing
set -u
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B
MODE=${2:-}
UTRACE=$B/utrace
E2E=$ROOT/tests/e2e
PROGS=$ROOT/tests/progs
GOLDEN=$E2E/golden
OUT=${UTRACE_E2E_OUT:-$ROOT/tests/out}
JOBS=${UTRACE_E2E_JOBS:-2}
TMO=${UTRACE_E2E_TIMEOUT:-60}
ALL_CONFIGS="gcc-O0-patch gcc-O2-patch clang-O0-patch clang-O2-patch gcc-O0-mcount gcc-O2-mcount"
CONFIGS=${UTRACE_E2E_CONFIGS:-$ALL_CONFIGS}
# Reports larger than this are cut (a report whose indentation grows with
# the depth would be tens of GB for recursion.c).
MAXREP=$((128 << 20))
MCOUNT_FLAGS="-pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie"

# "name program args...": each is run untraced and traced, then check_<name>.
TESTS=(
	"simple simple"
	"fib fib"
	"threads threads"
	"fork fork"
	"exec exec"
	"signal signal"
	"longjmp longjmp"
	"exception exception"
	"recursion recursion"
	"tailcall tailcall"
	"dlopen dlopen"
	"exitcode exitcode"
	"killself-segv killself segv"
	"killself-abrt killself abrt"
	"killself-kill killself kill"
	"errno errno"
	"args args"
	"longrun longrun"
	"tracepoints tracepoints"
	"manyfork manyfork"
	"fdclose fdclose"
	"fdclose-raw fdclose raw"
)
# "name record-options -- program args...": filter tests, check_<name>.
FILTERS=(
	"flt-l -l b* -- simple"
	"flt-l2 -l a -l c -- simple"
	"flt-n -n a -- simple"
	"flt-g -g a -- simple"
	"flt-depth --max-graph-depth 2 -- simple"
	"flt-function -p function -- simple"
	"flt-nop -p nop -- simple"
	"flt-tid -T 1 -- simple"
	"flt-overwrite --overwrite -b 64 -- longrun"
	"flt-thresh --thresh 1000 -- longrun 20000"
	"flt-small --drop -b 64 -- longrun 400000"
	"flt-noloss -b 64 -- longrun 400000"
	"flt-noloss-fn -p function -b 64 -- longrun 400000"
	"tp-all -e tp -- tracepoints"
	"tp-one -e tp:tp_value -f id>=3 -- tracepoints"
	"tp-pid0 -e tp:tp_value -f common_pid==0 -- tracepoints"
	"tp-pid -e tp:tp_value -f common_pid!=0&&common_type>=32768 -- tracepoints"
	"tp-function -p function -e tp:tp_begin -e tp:tp_end -- tracepoints"
	"hist-id -v -e hist:hist_req -R hist:keys=id:vals=bytes -- hist"
	"hist-pid -p nop -v -e hist:hist_req -R hist:keys=common_pid -- hist"
	"hist-multi -e hist:hist_req -R hist:keys=word:sort=word -R hist:keys=bytes.log2:vals=id:sort=bytes -- hist"
	"stk-graph -e snap:snap_tick -R stacktrace:2 -- snap 6"
	"snap-ow -p nop --overwrite -b 64 -e snap:snap_tick -- snap 20000"
	"stk-hist -v -e snap:snap_tick -R hist:keys=common_stacktrace:vals=id -- snap 6"
	"hist-onmax -v -e hist:hist_req -R hist:keys=id:b=bytes:onmax(\$b).save(word,bytes) -- hist"
	"hist-onchange -v -e hist:hist_req -R hist:keys=word:k=id:onchange(\$k).save(bytes,word):sort=word -- hist"
	"hist-track -v -e ksim:tcp_probe -R hist:keys=dport:cwnd=snd_cwnd:onchange(\$cwnd).save(snd_wnd,srtt,rcv_wnd):onchange(\$cwnd).snapshot() -- track"
	"fg-args -O funcgraph-args -O funcgraph-retval -- dwarfargs"
	"fg-retval -O funcgraph-retval -- dwarfargs"
	"fg-abi -O funcgraph-args -O funcgraph-retval -- args"
	"lc-graph --libcall -- libcall"
	"lc-function --libcall -p function -- libcall"
	"lc-notrace --libcall -n str* -n *printf -- libcall"
	"lc-exc --libcall -- libcall_exc"
	"lc-dlopen --libcall -- dlopen"
	"lc-threads --libcall -- threads"
	"lc-fork --libcall -- fork"
	"lc-signal --libcall -- signal"
	"lc-errno --libcall -- errno"
	"lc-longjmp --libcall -- longjmp"
	"lc-exception --libcall -- exception"
)

ulimit -c 0

# shellcheck source=tests/e2e/probes.sh
. "$E2E/probes.sh"
# shellcheck source=tests/e2e/libcall.sh
. "$E2E/libcall.sh"
# shellcheck source=tests/e2e/anybin.sh
. "$E2E/anybin.sh"

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

want_test() {
	[ -z "${UTRACE_E2E_TESTS:-}" ] && return 0
	case " $UTRACE_E2E_TESTS " in *" $1 "*) return 0 ;; esac
	return 1
}

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

# ---------------------------------------------------------------- per test

check_simple() {
	check_golden simple
	expect_func "$CFG simple main at depth 0" main depth 0 count 1
	expect_func "$CFG simple a nested in main" a depth 1 count 1
	expect_func "$CFG simple b nested in a" b depth 2 count 1
	expect_func "$CFG simple c nested in a" c depth 2 count 1
	expect_balanced "$CFG simple braces balance"
}

check_fib() {
	check_golden fib
	expect_func "$CFG fib 25 calls of fib" fib count 25 mind 1 maxd 6
	expect_balanced "$CFG fib braces balance"
}

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
}

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

check_exec() {
	expect_func "$CFG exec first image: phase1" phase1 count 1 depth 1
	expect_func "$CFG exec first image: do_exec" do_exec count 1 depth 2
	expect_func "$CFG exec new image traced: phase2" phase2 count 1 depth 1
	expect_func "$CFG exec new image traced: phase2_leaf" phase2_leaf count 2 depth 2
	expect_func "$CFG exec main in both images" main count 2 depth 0
}

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

check_longjmp() {
	expect_balanced "$CFG longjmp braces balance"
	expect_func "$CFG longjmp frames jumped over" jump_down count 21
	expect_func "$CFG longjmp after_longjmp back under main" after_longjmp count 1 depth 1
	expect_func "$CFG longjmp after_in_catcher under catcher" after_in_catcher count 3 depth 2
	expect_func "$CFG longjmp catcher returns normally" catcher count 3 depth 1
	expect_func "$CFG longjmp siglongjmp out of a handler" on_usr1 count 1
	expect_func "$CFG longjmp after_siglongjmp back under main" after_siglongjmp count 1 depth 1
}

check_exception() {
	expect_balanced "$CFG exception braces balance"
	expect_func "$CFG exception thrown twice 5 frames deep" thrower count 2
	expect_func "$CFG exception destructor ran during unwinding" Guard::~Guard count 2
	expect_func "$CFG exception dtor_work nested in the destructor" dtor_work count 2 mind 5 maxd 6
	expect_func "$CFG exception tail-calling destructor ran" TailGuard::~TailGuard count 2 mind 5 maxd 6
	expect_func "$CFG exception tail_dtor_work nested in its destructor" tail_dtor_work count 2 mind 6 maxd 7
	expect_func "$CFG exception handle() under rethrower" handle count 1 depth 2
	expect_func "$CFG exception local catch" local_catch count 3 depth 1
	expect_func "$CFG exception throws_runtime under local_catch" throws_runtime count 3 depth 2
	expect_func "$CFG exception after_all back under main" after_all count 1 depth 1
}

check_recursion() {
	local n
	expect_nolost "$CFG recursion no lost events"
	expect_func "$CFG recursion 100001 entries" recurse count 100001
	# a report may cap its indentation: only the braces count here
	expect_balanced "$CFG recursion entries = exits" noindent
	# the function tracer's output does not grow with the depth
	FN_OPTS="-b 4096" function_run recursion
	FACTS=$RES/fn.facts REP=$RES/fn.txt
	n=$(awk '$1 == "fcall" && $2 == "recurse" { n += $NF } END { print n + 0 }' "$FACTS")
	t "$([ "$n" = 100001 ]; echo $?)" "$CFG recursion 100001 entries (-p function)" "$n recurse lines" "report: $REP"
	FACTS=$RES/facts REP=$RES/rep.txt
}

check_tailcall() {
	expect_balanced "$CFG tailcall braces balance"
	expect_func "$CFG tailcall tc1 from main" tc1 count 2 depth 1
	expect_func "$CFG tailcall chain tc1 -> tc2 -> tc3 -> tc_leaf" tc_leaf count 2 depth 4
	expect_func "$CFG tailcall mutual recursion is_even" is_even count 890
	expect_func "$CFG tailcall mutual recursion is_odd" is_odd count 889
	expect_func "$CFG tailcall through a function pointer" target count 1 depth 2
	expect_func "$CFG tailcall into libc" to_libc count 1 depth 1
}

check_dlopen() {
	expect_balanced "$CFG dlopen braces balance"
	expect_func "$CFG dlopen plugin_entry named" plugin_entry count 2 depth 2
	expect_func "$CFG dlopen plugin_helper named" plugin_helper count 4 depth 3
	expect_func "$CFG dlopen main's functions around it" after_plugin count 2 depth 1
}

check_exitcode() {
	expect_balanced "$CFG exitcode no unmatched exits" open-ok
	expect_func "$CFG exitcode compute traced" compute count 1 depth 2
	expect_func "$CFG exitcode run traced" run count 1 depth 1
	expect_func "$CFG exitcode finish (calls exit) traced" finish count 1 depth 2
}

check_killself() {
	expect_balanced "$CFG $TEST no unmatched exits" open-ok
	expect_func "$CFG $TEST calls before the signal" before_death count 3 depth 1
	expect_func "$CFG $TEST die() traced" die count 1 depth 2
}
check_killself_segv() { check_killself; }
check_killself_abrt() { check_killself; }
check_killself_kill() { check_killself; }

check_errno() {
	expect_balanced "$CFG errno braces balance"
	expect_func "$CFG errno 20000-call loop traced" nop_call count 20001
	expect_func "$CFG errno callee in both threads" sees_errno count 2
}

check_args() {
	local f
	expect_balanced "$CFG args braces balance"
	for f in int8 dbl10 mixed vsum ret_pair ret_i128 ret_dpair ret_ld ret_big by_value; do
		expect_func "$CFG args $f traced" $f count 1 depth 1
	done
}

check_longrun() {
	expect_balanced "$CFG longrun braces balance"
	expect_func "$CFG longrun first_func" first_func count 1 depth 1
	expect_func "$CFG longrun the_end" the_end count 1 depth 1
	expect_func "$CFG longrun slow" slow count 1 depth 1
}

# ---------------------------------------------------------------- filters

check_flt_l() {
	expect_names "$CFG $TEST only b shown" "b"
	expect_func "$CFG $TEST b at the top" b count 1 depth 0
}
check_flt_l2() {
	expect_names "$CFG $TEST only a and c shown" "a c"
	expect_func "$CFG $TEST c nested in a" c count 1 depth 1
}
check_flt_n() {
	expect_names "$CFG $TEST a hidden" "b c main"
	expect_func "$CFG $TEST b directly under main" b count 1 depth 1
}
check_flt_g() {
	expect_names "$CFG $TEST only a's subtree" "a b c"
	expect_func "$CFG $TEST a at the top" a count 1 depth 0
	expect_balanced "$CFG $TEST braces balance"
}
check_flt_depth() {
	expect_names "$CFG $TEST two levels" "a main"
	if grep -q '^ *[0-9]*) .*|  *a();' "$REP"; then
		ok "$CFG $TEST a() shown as a leaf"
	else
		nok "$CFG $TEST a() shown as a leaf" "no 'a();' line" "report: $REP"
	fi
}
check_flt_function() {
	local bad=""
	[ "$(fact tracer)" = function ] || bad="$bad header '# tracer: $(fact tracer)';"
	grep -q ' <-' "$REP" || bad="$bad no '<-' in the lines;"
	for pc in "b a" "c a" "a main"; do
		set -- $pc
		awk -v f="$1" -v p="$2" '$1 == "fcall" && $2 == f && $3 == p { found = 1 } END { exit !found }' "$FACTS" ||
			bad="$bad no '$1 <-$2' line;"
	done
	[ "$(fact flines)" = 4 ] || bad="$bad $(fact flines) function lines, expected 4;"
	if [ -z "$bad" ]; then ok "$CFG $TEST lines 'func <-parent'"; else nok "$CFG $TEST lines 'func <-parent'" "$bad" "report: $REP"; fi
}
check_flt_nop() {
	if [ "$(fact lines)" = 0 ] && [ "$(fact flines)" = 0 ]; then
		ok "$CFG $TEST no function lines"
	else
		nok "$CFG $TEST no function lines" "$(fact lines) graph lines, $(fact flines) function lines" "report: $REP"
	fi
}
check_flt_tid() {
	# pid 1 is never one of the program's threads: nothing is recorded
	if [ "$(fact lines)" = 0 ] && [ "$(fact flines)" = 0 ]; then
		ok "$CFG $TEST other threads not traced"
	else
		nok "$CFG $TEST other threads not traced" "$(fact lines) graph lines, $(fact flines) function lines" "report: $REP"
	fi
}
check_flt_overwrite() {
	expect_func "$CFG $TEST keeps the last events" the_end count 1
	expect_absent "$CFG $TEST lost the first events" first_func
}
# A 64 KB buffer in drop mode loses records: every place that counts them
# must agree (the summary of record, the LOST lines of report, report --stat).
check_flt_small() {
	local rec lines stat
	rec=$(sed -n 's/^utrace record: [0-9]* records (\([0-9]*\) lost).*/\1/p' "$RES/t.err")
	lines=$("$UTRACE" report -i "$RES/trace.dat" 2>/dev/null |
		sed -n 's/.*\[LOST \([0-9]*\) EVENTS\].*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	stat=$("$UTRACE" report --stat -i "$RES/trace.dat" 2>/dev/null |
		sed -n 's/^# total: .* records, \([0-9]*\) lost,.*/\1/p')
	if [ "${rec:-0}" -gt 0 ] && [ "$rec" = "$lines" ] && [ "$rec" = "$stat" ]; then
		ok "$CFG $TEST lost counts agree ($rec)"
	else
		nok "$CFG $TEST lost counts agree" "record ${rec:-?}, report lines $lines, --stat ${stat:-?}"
	fi
}

# The same 64 KB buffer by default (no-loss): the program waits for the
# recorder, every call is saved.
check_flt_noloss() {
	expect_nolost "$CFG $TEST nothing lost with a 64 KB buffer"
	expect_func "$CFG $TEST every filler() call saved" filler count 400000 depth 1
	expect_func "$CFG $TEST first_func() saved" first_func count 1
	expect_func "$CFG $TEST the_end() saved" the_end count 1
	expect_balanced "$CFG $TEST braces balance"
}
# -p function: 12 bytes a call, one line a call (main first_func filler
# slow the_end)
check_flt_noloss_fn() {
	expect_nolost "$CFG $TEST nothing lost with a 64 KB buffer"
	t "$([ "$(fact flines)" = 400004 ]; echo $?)" "$CFG $TEST a line for each of the 400004 calls" \
		"$(fact flines) function lines" "report: $REP"
}

# --thresh 1000: a call is kept when it lasted 1000 us or more.  The short
# calls (20002 of about 50 ns) are dropped, but on a busy machine one may
# be preempted for longer than the threshold and is rightly kept: the
# check is that every short call kept lasted the threshold, and that
# nearly all were dropped (a preemption is rare among calls this short).
check_flt_thresh() {
	local got
	expect_func "$CFG $TEST slow() (5 ms) kept" slow count 1
	got=$(awk '/(filler|first_func|the_end)(\(\);| \*\/)/ {
			n++; if (!match($0, /[0-9]+\.[0-9]+ us/) || substr($0, RSTART, RLENGTH - 3) + 0 < 1000) bad++
		} END { print n + 0, bad + 0 }' "$REP")
	set -- $got
	t "$([ "$2" -eq 0 ] && [ "$1" -le 200 ]; echo $?)" "$CFG $TEST short calls dropped" \
		"$1 short calls kept (at most 200 of 20002, each preempted), $2 of them shorter than 1000 us" \
		"report: $REP"
}

# ---------------------------------------------------------------- tracepoints

# count_lines WHAT REGEX N: the report has N lines matching REGEX
count_lines() {
	local n
	n=$(grep -cE "$2" "$REP")
	if [ "$n" = "$3" ]; then ok "$1"; else nok "$1" "$n lines match '$2', expected $3" "report: $REP"; fi
}
# The program closed every descriptor it did not open, through libc: the
# runtime's socket must have survived, so every call is in the report
# (as many as the program counted), in both tracers, and nothing says a
# connection was lost.
check_fdclose() {
	local want n
	want=$(sed -n 's/^sum .*, \([0-9]*\) calls of work$/\1/p' "$RES/t.out")
	expect_balanced "$CFG $TEST braces balance"
	expect_nolost "$CFG $TEST no lost events"
	expect_func "$CFG $TEST every call of work the program counted (${want:-?})" work count "${want:-600}"
	expect_func "$CFG $TEST phase 6 times, in main and the thread" phase count 6 mind 1 maxd 2
	t "$(! grep -q "closed utrace's connection" "$RES/t.err" "$RES/rep.err"; echo $?)" \
		"$CFG $TEST the connection stayed open" "$(grep "connection" "$RES/t.err" "$RES/rep.err")"
	function_run fdclose
	n=$(awk '$1 == "fcall" && $2 == "work" { n += $NF } END { print n + 0 }' "$RES/fn.facts")
	t "$([ "$n" = "${want:-600}" ]; echo $?)" "$CFG $TEST every call of work (-p function)" \
		"$n work lines, the program counted ${want:-?}" "report: $RES/fn.txt"
}

# A close that libc never sees: the recorder says so (the runtime, whose
# messages go to the recorder, cannot) and keeps what the process goes on
# writing into its buffer; nothing reaches the program's stderr (the
# stderr comparison).
check_fdclose_raw() {
	t "$(grep -q "^utrace record: pid [0-9]*: closed utrace's connection; threads and libraries it starts from now on are not traced$" \
		"$RES/t.err"; echo $?)" "$CFG $TEST the recorder says the connection was closed" "$(cat "$RES/t.err")"
	t "$(grep -q "^utrace record: 1 process closed utrace's connection" "$RES/t.err"; echo $?)" \
		"$CFG $TEST the summary counts it" "$(cat "$RES/t.err")"
	t "$(grep -q "^utrace report: notice: [0-9]* [0-9]* closed utrace's connection" "$RES/rep.err"; echo $?)" \
		"$CFG $TEST the report says it" "$(cat "$RES/rep.err")"
	expect_func "$CFG $TEST the main thread's calls after the close are kept" work count 200
	expect_func "$CFG $TEST phase twice, in main" phase count 2 depth 2
	expect_balanced "$CFG $TEST braces balance"
}

check_manyfork() {
	expect_func "$CFG $TEST work traced in all 300 children" work count 300
}
check_tracepoints() {
	# not enabled: the jump labels stay NOPs, nothing is recorded
	count_lines "$CFG $TEST no event without -e" 'tp_(value|begin|end):' 0
	expect_func "$CFG $TEST step traced" step count 5 depth 2
}
check_tp_all() {
	count_lines "$CFG $TEST tp_value events as graph comments" '\| +/\* tp_value: id=[0-4] name=(zero|one|two|three|four) \*/$' 5
	# main 0, run 1, step 2: an event inside step is at depth 3
	count_lines "$CFG $TEST tp_value inside step" '\|        /\* tp_value: id=2 name=two \*/$' 1
	count_lines "$CFG $TEST class events" '/\* tp_(begin: a=5 b=-1|end: a=5 b=20) \*/$' 2
	count_lines "$CFG $TEST utrace_printf text" '/\* sum=20 \*/$' 1
	expect_balanced "$CFG $TEST braces balance"
}
check_tp_one() {
	count_lines "$CFG $TEST filter id>=3 keeps two" '/\* tp_value: id=[34] name=(three|four) \*/$' 2
	count_lines "$CFG $TEST other events off" 'tp_(begin|end):' 0
}
# common fields hold the kernel's values: common_pid the thread, never 0
check_tp_pid0() {
	count_lines "$CFG $TEST common_pid==0 keeps none" 'tp_value:' 0
}
check_tp_pid() {
	count_lines "$CFG $TEST common_pid!=0 and common_type keep all five" '/\* tp_value: id=[0-4] ' 5
}
check_tp_function() {
	count_lines "$CFG $TEST event lines in the function layout" \
		'^ +tracepoints-[0-9]+ +\[[0-9]{3}\] \.\.\.\.\. +[0-9]+\.[0-9]{6}: tp_(begin: a=5 b=-1|end: a=5 b=20)$' 2
	count_lines "$CFG $TEST marker line" ': tracing_mark_write: sum=20$' 1
}

# ---------------------------------------------------------------- hist triggers

# report --hist of this test's recording into $RES/hist.txt; 0 if it worked
hist_report() {
	timeout -k 5 "$TMO" "$UTRACE" report --hist -i "$RES/trace.dat" >"$RES/hist.txt" 2>"$RES/hist.err"
}

# hist.c fires id k 10 * (k + 1) times with bytes 100 * k + j, j = 0, 1, ...:
# every entry of keys=id:vals=bytes must say so, and the totals add up
check_hist_id() {
	local bad
	count_lines "$CFG $TEST soft-enabled: no hist_req record" 'hist_req:' 0
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw hist-id "$RES/hist.txt"
	bad=$(awk '/^\{ id: / { k = $3; h = $6; b = $8; n++; want = 10 * (k + 1)
			if (h != want || b != 100 * k * want + want * (want - 1) / 2) print "id " k ": " h " hits, bytes " b }
		/^    Hits: / { hits = $2 } /^    Entries: / { ent = $2 } /^    Dropped: / { drop = $2 }
		END { if (n != 8 || hits != 360 || ent != 8 || drop != 0) print n " entries, Hits " hits ", Entries " ent ", Dropped " drop }' "$RES/hist.txt")
	if [ -z "$bad" ]; then
		ok "$CFG $TEST every id's hits and bytes exact, from main, a thread and a fork child"
	else
		nok "$CFG $TEST every id's hits and bytes exact" "$bad" "hist: $RES/hist.txt"
	fi
}

# common_pid is the firing thread's: main (ids 0-5: 210 hits), its thread
# (70) and its fork child (80) each have their own entry, with no tracer
# (no ring buffer ever made) as with one
check_hist_pid() {
	local got
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	got=$(sed -n 's/^{ common_pid: *[0-9]* } hitcount: *\([0-9]*\)$/\1/p' "$RES/hist.txt" | sort -n | tr '\n' ' ')
	t "$([ "$got" = "70 80 210 " ]; echo $?)" \
		"$CFG $TEST main, its thread and its fork child each under their own pid" "got: $got"
}

# two triggers on a recorded event: both histograms, and every record too
check_hist_multi() {
	count_lines "$CFG $TEST the event is recorded too" '/\* hist_req: id=' 360
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw hist-multi "$RES/hist.txt"
	t "$(grep -c '^# event histogram$' "$RES/hist.txt" | grep -qx 2; echo $?)" \
		"$CFG $TEST two histograms" "$(head -20 "$RES/hist.txt")"
}

# onmax($b).save(word,bytes) on hist.c: bytes grows with every firing of
# an id, so each id's max is its last firing's, 100 * k + 10 * (k + 1) - 1,
# saved with that firing's word (words[j % 4]); then the same maximum
# through onmax().trace() into a synthetic event: one record per new max
# (id 0's first bytes, 0, is not above the start, 0), 359 in all.
check_hist_onmax() {
	local d=$RES st n
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw hist-onmax "$RES/hist.txt"
	"$UTRACE" record -o "$d/tr.dat" -p nop --synthetic 'maxbytes u64 bytes; int id' \
		-e synthetic:maxbytes -R 'hist:keys=id:vals=bytes' \
		-v -e hist:hist_req -R 'hist:keys=id:b=bytes:onmax($b).trace(maxbytes,$b,id)' \
		-- "$BIN/hist" >/dev/null 2>"$d/tr.err" </dev/null
	st=$?
	"$UTRACE" report -i "$d/tr.dat" >"$d/tr.rep" 2>&1
	"$UTRACE" report --hist -i "$d/tr.dat" >"$d/tr.hist" 2>&1
	n=$(grep -c ' maxbytes: bytes=[0-9]* id=[0-7]$' "$d/tr.rep")
	t "$([ "$st" = 0 ] && [ "$n" = 359 ] &&
		grep -q '^{ id:          7 } hitcount:         80  bytes:      59160$' "$d/tr.hist" &&
		grep -q '^{ id:          0 } hitcount:          9  bytes:         45$' "$d/tr.hist"
		echo $?)" "$CFG $TEST onmax().trace(): a synthetic record per new max ($n)" \
		"$(head -20 "$d/tr.hist")" "$(cat "$d/tr.err")"
	# a char[] field: the string copied into each synthetic record
	"$UTRACE" record -o "$d/ts.dat" -p nop --synthetic 'maxword u64 bytes; char[] word; int id' \
		-e synthetic:maxword \
		-v -e hist:hist_req -R 'hist:keys=id:b=bytes:onmax($b).trace(maxword,$b,word,id)' \
		-- "$BIN/hist" >/dev/null 2>"$d/ts.err" </dev/null
	"$UTRACE" report -i "$d/ts.dat" >"$d/ts.rep" 2>&1
	n=$(awk '/ maxword: bytes=[0-9]* word=[a-z]* id=[0-7]$/ {
			split($0, a, /bytes=| word=| id=/); w[0] = "alpha"; w[1] = "beta"
			w[2] = "gamma"; w[3] = "delta"
			if (a[3] == w[(a[2] - 100 * a[4]) % 4]) n++
		} END { print n + 0 }' "$d/ts.rep")
	t "$([ "$n" = 359 ]; echo $?)" \
		"$CFG $TEST char[] synthetic field: each record has its firing's word ($n of 359)" \
		"$(grep -v '^#' "$d/ts.rep" | head -5)" "$(cat "$d/ts.err")"
}

# onchange($k).save(bytes,word) keyed by word: id changes at each new id
# of the firing order (0..5 in main, 6 in a thread, 7 in a fork child, one
# table), so every word's last change is to 7, with bytes 700 + its first
# index in the word list.
check_hist_onchange() {
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw hist-onchange "$RES/hist.txt"
}

# The kernel documentation's onchange() and onmax() examples on track.c's
# kernel-like user events.  tcp_probe: each port's last change of
# snd_cwnd with the fields saved then (a golden).  The wakeup latency:
# sched_waking's ts0 per pid, sched_switch's onmax($wakeup_lat).save(...)
# for cyclictest's three pids, whose max is at least the longest sleep
# (5 ms) and whose saved fields are the switch's (a golden once the
# latencies, which the machine decides, are taken out).
check_hist_track() {
	local d=$RES bad
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw hist-track "$RES/hist.txt"
	# onchange($cwnd).snapshot(): each change for the whole table took one
	"$UTRACE" report --snapshot -i "$RES/trace.dat" >"$d/snap.txt" 2>"$d/snap.err"
	t "$([ "$(grep -c '^##### snapshot [0-9]* of [0-9]*: ksim:tcp_probe at ' "$d/snap.txt")" -ge 1 ]
		echo $?)" "$CFG $TEST onchange().snapshot(): report --snapshot lists them" \
		"$(head -3 "$d/snap.txt")" "$(cat "$d/snap.err")"
	"$UTRACE" record -o "$d/wk.dat" -p nop \
		-v -e ksim:sched_waking -R 'hist:keys=pid:ts0=common_timestamp.usecs if comm=="cyclictest"' \
		-v -e ksim:sched_switch -R 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmax($wakeup_lat).save(next_comm,prev_pid,prev_prio,prev_comm) if next_comm=="cyclictest"' \
		-- "$BIN/track" >/dev/null 2>"$d/wk.err" </dev/null
	"$UTRACE" report --hist -i "$d/wk.dat" >"$d/wk.hist" 2>&1
	bad=$(awk '/^\tmax: / && ($2 < 5000 || $2 > 5000000) { print "max " $2 }
		/^\tmax: / { n++ } END { if (n != 3) print n " max lines" }' "$d/wk.hist")
	t "$([ -z "$bad" ]; echo $?)" "$CFG $TEST onmax(\$wakeup_lat): each pid's max >= 5 ms" \
		"$bad" "$(cat "$d/wk.err")"
	sed -E 's/^\tmax: +[0-9]+/\tmax: N/' "$d/wk.hist" >"$d/wk.hist.n"
	check_golden_raw hist-track-wakeup "$d/wk.hist.n"
	# the doc's `wakeup_new_test pid_t pid; char comm[16]`: a char[16]
	# synthetic field filled from sched_switch's next_comm, once per pid
	# (its next_prio changes from 0 once)
	"$UTRACE" record -o "$d/wn.dat" -p nop --synthetic 'wakeup_new_test pid_t pid; char comm[16]' \
		-e synthetic:wakeup_new_test \
		-v -e ksim:sched_switch -R 'hist:keys=next_pid:p=next_prio:onchange($p).trace(wakeup_new_test,next_pid,next_comm)' \
		-- "$BIN/track" >/dev/null 2>"$d/wn.err" </dev/null
	"$UTRACE" report -i "$d/wn.dat" 2>&1 | grep -o 'wakeup_new_test: .*' >"$d/wn.rep"
	t "$(printf 'wakeup_new_test: pid=%s comm=%s\n' 3001 cyclictest 3002 cyclictest \
		3003 cyclictest 4000 bash | cmp -s - "$d/wn.rep"; echo $?)" \
		"$CFG $TEST char[16] synthetic field: each pid's comm, as the kernel prints it" \
		"$(cat "$d/wn.rep")" "$(cat "$d/wn.err")"
}

# ---------------------------------------------------------------- snapshot, stacktrace

# snap.c fires snap_tick id 0..N-1 from snap_inner <- snap_middle <-
# snap_outer <- main.  stacktrace:2 under function_graph (the shadow
# stack): the first two events get the block, naming that chain.
check_stk_graph() {
	local st
	check_golden stk-graph
	count_lines "$CFG $TEST stacktrace:2: two stack blocks" '<stack trace>' 2
	count_lines "$CFG $TEST each block names snap_inner first" '^ => snap_inner$' 2
	count_lines "$CFG $TEST each block ends with main" '^ => main \*/$' 2
	# without function_graph: frame pointers, which -O0 keeps
	"$UTRACE" record -p nop -o "$RES/fp.dat" -e snap:snap_tick -R 'stacktrace if id == 3' \
		-- "$BIN/snap" 6 >/dev/null 2>"$RES/fp.err" </dev/null
	"$UTRACE" report -i "$RES/fp.dat" >"$RES/fp.txt" 2>>"$RES/fp.err"
	st=$?
	t "$([ $st = 0 ] && [ "$(grep -c '<stack trace>$' "$RES/fp.txt")" = 1 ] &&
		grep -A1 '<stack trace>$' "$RES/fp.txt" | head -1 | grep -q 'snap_tick.*id=3\|<stack trace>'
		echo $?)" "$CFG $TEST -p nop stacktrace if id == 3: one block" "$(cat "$RES/fp.err")" \
		"$(head -20 "$RES/fp.txt")"
	case $CFG in
	*-O0-*)
		t "$(grep -A4 '<stack trace>$' "$RES/fp.txt" | tail -4 | tr '\n' ' ' |
			grep -qx ' => snap_inner  => snap_middle  => snap_outer  => main '; echo $?)" \
			"$CFG $TEST frame pointers: snap_inner, snap_middle, snap_outer, main" \
			"$(grep -A6 '<stack trace>$' "$RES/fp.txt")" ;;
	esac
}

# hist:keys=common_stacktrace under function_graph: one entry, the chain
# of the shadow stack as the kernel prints a stacktrace key; the -O0
# build's frame pointers give the same chain without function_graph.
check_stk_hist() {
	if ! hist_report; then
		nok "$CFG $TEST report --hist" "$(head -3 "$RES/hist.err")"
		return
	fi
	check_golden_raw stk-hist "$RES/hist.txt"
	case $CFG in
	*-O0-*)
		"$UTRACE" record -p nop -o "$RES/fp.dat" -v -e snap:snap_tick \
			-R 'hist:keys=stacktrace' -- "$BIN/snap" 6 >/dev/null 2>"$RES/fp.err" </dev/null
		"$UTRACE" report --hist -i "$RES/fp.dat" >"$RES/fp.hist" 2>>"$RES/fp.err"
		t "$(sed -n '/^{ common_stacktrace:$/,/^}/p' "$RES/fp.hist" | sed 's/+0x[0-9a-f]*$//' |
			sed -n 2,5p | tr -d ' ' | tr '\n' ' ' | grep -qx 'snap_inner snap_middle snap_outer main '
			echo $?)" "$CFG $TEST frame pointers: the stacktrace key names the chain" \
			"$(cat "$RES/fp.hist" "$RES/fp.err")" ;;
	esac
}

# snap_ids FILE: "first last count" of the snap_tick ids in FILE
snap_ids() {
	sed -n 's/.*snap_tick: id=\([0-9]*\).*/\1/p' "$1" |
		awk 'NR == 1 { f = $1 } { l = $1; n++ } END { print f + 0, l + 0, n + 0 }'
}

# The flight recorder: --overwrite with a 64 KB buffer keeps a few
# thousand of the 20000 ticks; snapshot:1 at id 15000 keeps the ones
# right before it, every one (the thread waits for the copy), and the
# trace goes on to the end.
check_snap_ow() {
	local st ids f l n
	"$UTRACE" report --snapshot -i "$RES/trace.dat" >"$RES/none.txt" 2>"$RES/none.err"
	st=$?
	t "$([ $st = 1 ] && [ ! -s "$RES/none.txt" ] && grep -q 'holds no snapshot' "$RES/none.err"
		echo $?)" "$CFG $TEST report --snapshot without one: says so, status 1" "status $st" \
		"$(cat "$RES/none.err")"
	"$UTRACE" record -p nop --overwrite -b 64 -o "$RES/ow.dat" -e snap:snap_tick \
		-R 'snapshot:1 if id == 15000' -- "$BIN/snap" 20000 >/dev/null 2>"$RES/ow.err" </dev/null
	"$UTRACE" report --snapshot -i "$RES/ow.dat" >"$RES/ow.txt" 2>>"$RES/ow.err"
	st=$?
	read -r f l n <<<"$(snap_ids "$RES/ow.txt")"
	t "$([ $st = 0 ] && [ "$l" = 14999 ] && [ "$f" -gt 5000 ] && [ $((l - f + 1)) = "$n" ] &&
		[ "$(grep -c '^# tracer: nop$' "$RES/ow.txt")" = 1 ] && ! grep -q '^#####' "$RES/ow.txt"
		echo $?)" "$CFG $TEST snapshot at id 15000: ids $f..14999, every one, the older overwritten" \
		"status $st, ids $f..$l ($n)" "$(cat "$RES/ow.err")"
	"$UTRACE" report -i "$RES/ow.dat" >"$RES/ow.rep" 2>/dev/null
	read -r f l n <<<"$(snap_ids "$RES/ow.rep")"
	t "$([ "$l" = 19999 ]; echo $?)" "$CFG $TEST recording went on after the snapshot: the trace ends at 19999" \
		"ids $f..$l ($n)"
	# :2 of three firings, without --overwrite: two snapshots, a line each
	"$UTRACE" record -o "$RES/two.dat" -e snap:snap_tick \
		-R 'snapshot:2 if id == 100 || id == 200 || id == 300' -- "$BIN/snap" 400 \
		>/dev/null 2>"$RES/two.err" </dev/null
	"$UTRACE" report --snapshot -i "$RES/two.dat" >"$RES/two.txt" 2>>"$RES/two.err"
	grep -E '^#####|^# tracer|snap_tick: id=(0|99|199|299) ' "$RES/two.txt" | mask >"$RES/two.golden"
	check_golden_raw snap-two "$RES/two.golden"
	# each snapshot's last tick: the one right before the id that fired it
	t "$([ "$(awk '/^#####/ { if (l != "") printf "%s ", l; l = "" }
			/snap_tick: id=/ { sub(/.*id=/, ""); l = $1 + 0 }
			END { print l }' "$RES/two.txt")" = "99 199" ]; echo $?)" \
		"$CFG $TEST snapshot:2: two, ending right before ids 100 and 200" \
		"$(grep -E '^#####' "$RES/two.txt")" "$(cat "$RES/two.err")"
}

# The trigger commands of events.rst on hist.c (id k fires 10 * (k + 1)
# times, ids in order) and tracepoints.c (tp_value id 0..4, then tp_end):
# what each leaves in the recording follows from those counts.
trigger_commands() { # DIR HIST_PROG TRACEPOINTS_PROG
	local d=$1 hp=$2 tp=$3 n
	trig_run() { # NAME PROG ARGS...: record, then the report's and hist's text
		local name=$1 prog=$2
		shift 2
		"$UTRACE" record -o "$d/$name.dat" "$@" -- "$prog" >/dev/null 2>"$d/$name.err" </dev/null
		"$UTRACE" report -i "$d/$name.dat" >"$d/$name.rep" 2>/dev/null
		"$UTRACE" report --hist -i "$d/$name.dat" >"$d/$name.hist" 2>/dev/null
	}
	trig_run off "$hp" -e hist:hist_req -R 'traceoff:1 if id == 3'
	n=$(grep -c 'hist_req:' "$d/off.rep")
	t "$([ "$n" = 60 ]; echo $?)" "trigger traceoff if id == 3: ids 0-2 recorded, 60 events, none after" \
		"$n events: $(cat "$d/off.err")"
	trig_run en "$tp" -e tp:tp_value -R 'enable_event:tp:tp_end if id == 4'
	t "$(grep -c 'tp_end: a=5 b=20' "$d/en.rep" | grep -qx 1 && ! grep -q tp_begin "$d/en.rep"; echo $?)" \
		"trigger enable_event: the target (named by no -e) recorded once enabled, tp_begin never" \
		"$(grep 'tp_' "$d/en.rep" | head -8)"
	trig_run dis "$hp" -e hist:hist_req -R 'disable_event:hist:hist_req:1 if id == 1' \
		-R 'enable_event:hist:hist_req:1 if id == 4'
	n=$(grep -c 'hist_req:' "$d/dis.rep")
	t "$([ "$n" = 270 ]; echo $?)" "trigger disable_event:1 at id 1, enable_event:1 at id 4: 10 + 260 events" \
		"$n events: $(cat "$d/dis.err")"
	trig_run hoff "$hp" -v -e hist:hist_req -R 'hist:keys=id' -R 'disable_hist:hist:hist_req if id == 3'
	t "$(grep -q '^{ id:          2 } hitcount:         30$' "$d/hoff.hist" &&
		! grep -q '^{ id:          3 }' "$d/hoff.hist" && grep -q 'size=2048 \[paused\]$' "$d/hoff.hist"
		echo $?)" "trigger disable_hist at id 3: ids 0-2 counted, the hist [paused]" "$(cat "$d/hoff.hist")"
	trig_run hon "$hp" -v -e hist:hist_req -R 'hist:keys=id:pause' -R 'enable_hist:hist:hist_req if id == 6'
	t "$(grep -q '^    Hits: 150$' "$d/hon.hist" && grep -q '^{ id:          6 } hitcount:         70$' "$d/hon.hist"
		echo $?)" "trigger hist:pause then enable_hist at id 6: ids 6 and 7 counted" "$(cat "$d/hon.hist")"
	# name=: tp_begin and tp_end (a = 5 each) add to one table, which both show
	trig_run named "$tp" -p nop -e tp:tp_begin -R 'hist:name=pairs:keys=a' \
		-e tp:tp_end -R 'hist:name=pairs:keys=a'
	t "$([ "$(grep -c '^{ a:          5 } hitcount:          2$' "$d/named.hist")" = 2 ] &&
		[ "$(grep -c 'trigger info: hist:name=pairs:keys=a:' "$d/named.hist")" = 2 ]; echo $?)" \
		"trigger name=: two events share one table, each shows it" "$(cat "$d/named.hist")"
	"$UTRACE" record -o "$d/bad.dat" -e hist:hist_req -R 'traceoff if nosuch == 1' -- "$hp" \
		>"$d/bad.out" 2>"$d/bad.err" </dev/null
	t "$([ $? = 2 ] && [ ! -s "$d/bad.out" ] && grep -q 'Field not found' "$d/bad.err" &&
		grep -qx '              ^' "$d/bad.err"; echo $?)" \
		"trigger with a bad filter: the filter's error and caret, nothing ran" "$(cat "$d/bad.err")"
}

# The kernel's latency recipe on synth.c: requests 1..3 begin, take id * 2
# ms and end; request 9 ends without a begin, 4 begins without an end.  The
# synthetic req_lat gets one entry per id 1..3 with lat >= id * 2000 us,
# none for 9 or 4, and the records it writes, when recorded, say the same.
synth_commands() { # DIR SYNTH_PROG
	local d=$1 sp=$2 st bad
	# utrace list -e lists a definition's event with the program's, and
	# -F its format, the kernel's for a synthetic event
	"$UTRACE" list -e "$sp" -F --synthetic 'req_lat u64 lat; int id' 'synthetic:*' \
		>"$d/list.txt" 2>&1
	t "$(grep -qx 'name: req_lat' "$d/list.txt" &&
		grep -qxF '	field:u64 lat;	offset:8;	size:8;	signed:0;' "$d/list.txt" &&
		grep -qxF 'print fmt: "lat=%llu id=%d", REC->lat, REC->id' "$d/list.txt" &&
		"$UTRACE" list -e "$sp" --synthetic 'req_lat u64 lat; int id' | grep -qx 'synthetic:req_lat'
		echo $?)" "list -e --synthetic: synthetic:req_lat and its format" "$(cat "$d/list.txt")"
	local begin='hist:keys=id:ts0=common_timestamp.usecs'
	local end='hist:keys=id:lat=common_timestamp.usecs-$ts0:onmatch(app.req_begin)'
	"$UTRACE" record -o "$d/syn.dat" --synthetic 'req_lat u64 lat; int id' \
		-v -e app:req_begin -R "$begin" -v -e app:req_end -R "$end.req_lat(\$lat,id)" \
		-v -e synthetic:req_lat -R 'hist:keys=id,lat:sort=id,lat' -- "$sp" \
		>/dev/null 2>"$d/syn.err" </dev/null
	"$UTRACE" report --hist -i "$d/syn.dat" >"$d/syn.hist" 2>&1
	bad=$(awk '/^# event histogram$/ { h++ } h == 1 && /^\{ id: / {
			gsub(/[{},:]/, " "); n++
			if ($2 != n || $4 < 2000 * n || $4 > 2000 * n + 50000 || $6 != 1) print "entry " $0
		} h == 1 && /Hits:/ && $2 != 3 { print "hits " $2 }
		END { if (n != 3) print n " entries" }' "$d/syn.hist")
	t "$([ -z "$bad" ] && grep -q 'trigger info: hist:keys=id,lat:vals=hitcount:sort=id,lat:' \
		"$d/syn.hist"; echo $?)" \
		"synthetic req_lat from onmatch(): lat per id 1..3 >= id * 2 ms, the unmatched ones never" \
		"$bad" "$(head -20 "$d/syn.hist")" "$(cat "$d/syn.err")"
	"$UTRACE" record -o "$d/synr.dat" -p nop --synthetic 'req_lat u64 lat; int id' \
		-e synthetic:req_lat -v -e app:req_begin -R "$begin" \
		-v -e app:req_end -R "$end.trace(req_lat,\$lat,id)" -- "$sp" >/dev/null 2>"$d/synr.err" </dev/null
	"$UTRACE" report -i "$d/synr.dat" >"$d/synr.rep" 2>&1
	t "$([ "$(grep -c ' req_lat: lat=[0-9]* id=[123]$' "$d/synr.rep")" = 3 ] &&
		[ "$(grep -c 'req_lat:' "$d/synr.rep")" = 3 ]; echo $?)" \
		"synthetic req_lat recorded by trace(): 3 records, printed with its print fmt" \
		"$(grep -v '^#' "$d/synr.rep" | head -8)" "$(cat "$d/synr.err")"
	"$UTRACE" record -o "$d/synb.dat" --synthetic 'req_lat u64 lat; int id' -v -e app:req_begin \
		-R "$begin" -v -e app:req_end -R "$end.req_lat(\$lat)" -- "$sp" >"$d/synb.out" 2>"$d/synb.err" </dev/null
	st=$?
	t "$([ "$st" = 2 ] && [ ! -s "$d/synb.out" ] &&
		grep -q "Param count doesn't match synthetic event field count" "$d/synb.err"; echo $?)" \
		"synthetic: a bad param count is the kernel's error, nothing ran" "status $st: $(cat "$d/synb.err")"
	"$UTRACE" record -o "$d/synb.dat" --synthetic 'req_lat u64 lat; int id' -v -e app:req_end \
		-R "$end.req_lat(\$lat,id)" -- "$sp" >"$d/synb.out" 2>"$d/synb.err" </dev/null
	st=$?
	t "$([ "$st" = 2 ] && [ ! -s "$d/synb.out" ] && grep -q "Couldn't find variable: ts0" "$d/synb.err" &&
		grep -qx "$(printf '%43s' '')^" "$d/synb.err"; echo $?)" \
		"synthetic: an unknown variable is the kernel's error and caret, nothing ran" \
		"status $st: $(cat "$d/synb.err")"
	"$UTRACE" record -o "$d/synb.dat" --synthetic 'req_lat u64 lat; in id' -e app:req_end -- "$sp" \
		>"$d/synb.out" 2>"$d/synb.err" </dev/null
	st=$?
	t "$([ "$st" = 2 ] && grep -q -- "--synthetic: Invalid type" "$d/synb.err"; echo $?)" \
		"synthetic: a bad definition is the kernel's error, nothing ran" "status $st: $(cat "$d/synb.err")"
}

# ---------------------------------------------------------------- running

# run_test NAME "record options" PROGRAM ARGS...
run_test() {
	local name=$1 ropts=$2 prog=$3 ust tst rst fn repopts
	shift 3
	TEST=$name
	RES=$OUT/$CFG/res/$name
	REP=$RES/rep.txt
	FACTS=$RES/facts
	rm -rf "$RES"
	mkdir -p "$RES"
	if [ ! -x "$BIN/$prog" ]; then
		nok "$CFG $name run" "$BIN/$prog was not built (see $OUT/build.log)"
		return
	fi
	(cd "$RUN" && { timeout -k 5 "$TMO" "$BIN/$prog" "$@" >"$RES/u.out" 2>"$RES/u.err" </dev/null; } 2>/dev/null)
	ust=$?
	# shellcheck disable=SC2086 # ropts is a word list on purpose
	(cd "$RUN" && { timeout -k 5 "$TMO" "$UTRACE" record $ropts -o "$RES/trace.dat" -- "$BIN/$prog" "$@" \
		>"$RES/t.out" 2>"$RES/t.err" </dev/null; } 2>/dev/null)
	tst=$?
	if [ "$tst" = 124 ] || { [ "$tst" = 137 ] && [ "$ust" != 137 ]; }; then
		nok "$CFG $name exit status" "utrace record timed out after ${TMO}s" "$(tail -5 "$RES/t.err")"
	elif [ "$ust" = "$tst" ]; then
		ok "$CFG $name exit status ($ust)"
	else
		nok "$CFG $name exit status" "untraced $ust, traced $tst" "$(tail -5 "$RES/t.err")"
	fi
	if cmp -s "$RES/u.out" "$RES/t.out"; then
		ok "$CFG $name stdout"
	else
		nok "$CFG $name stdout" "$(diff "$RES/u.out" "$RES/t.out" | head -10)"
	fi
	grep -v '^utrace record:' "$RES/t.err" >"$RES/t.err.prog"
	if cmp -s "$RES/u.err" "$RES/t.err.prog"; then
		ok "$CFG $name stderr"
	else
		nok "$CFG $name stderr" "$(diff "$RES/u.err" "$RES/t.err.prog" | head -10)"
	fi
	if [ ! -s "$RES/trace.dat" ]; then
		nok "$CFG $name report" "no trace file $RES/trace.dat"
		return
	fi
	# several threads: name the task on every line (funcgraph-proc), the
	# kernel's default output names tasks only at switches, per CPU
	case $name in
	threads | fork | errno | recursion | manyfork | fdclose* | lc-*) repopts="-O funcgraph-proc" ;;
	*) repopts="" ;;
	esac
	# shellcheck disable=SC2086
	timeout -k 5 "$TMO" "$UTRACE" report $repopts -i "$RES/trace.dat" 2>"$RES/rep.err" | head -c $MAXREP >"$REP"
	rst=${PIPESTATUS[0]}
	if [ "$(stat -c %s "$REP")" -ge "$MAXREP" ]; then
		nok "$CFG $name report" "report output cut at $MAXREP bytes (indentation growing with the depth?)"
	elif [ "$rst" != 0 ]; then
		nok "$CFG $name report" "utrace report exited with $rst" "$(head -5 "$RES/rep.err")"
	else
		ok "$CFG $name report"
	fi
	awk -f "$E2E/graph.awk" "$REP" >"$FACTS"
	fn=check_${name//-/_}
	if declare -F "$fn" >/dev/null; then
		"$fn"
	fi
	# keep disk use bounded: the big reports are not needed once checked
	if [ "$(stat -c %s "$REP")" -gt $((16 << 20)) ]; then
		: >"$REP"
		echo "(deleted: over 16 MiB)" >"$REP.deleted"
	fi
}

# ---------------------------------------------------------------- latency

# utrace latency on tests/progs/latency.c (nap() sleeps 2 ms five times,
# quick() returns at once 20 times, exit status 3): the program's stdout,
# stderr and status pass through, the histogram follows its stdout in
# perf's layout.  Only buckets far apart are counted, whatever the noise:
# quick's under 1024 us (the "us" buckets), nap's from there on.
latency_hist() { # latency_hist: the histogram part of $RES/t.out
	tail -c +$(($(stat -c %s "$RES/u.out") + 1)) "$RES/t.out" >"$RES/hist.txt"
}
latency_sum() { # latency_sum UNIT-REGEX: the counts of the bucket lines in those units
	awk -F'|' -v re="$1" '$1 ~ "^  .{4} - .{4} (" re ") *$" { c += $2 } END { print c + 0 }' "$RES/hist.txt"
}
check_latency() {
	local prog=$BIN/latency ust tst n bad hdr
	TEST=latency
	RES=$OUT/$CFG/res/latency
	rm -rf "$RES"
	mkdir -p "$RES"
	if [ ! -x "$prog" ]; then
		nok "$CFG latency run" "$prog was not built (see $OUT/build.log)"
		return
	fi
	(cd "$RUN" && { timeout -k 5 "$TMO" "$prog" >"$RES/u.out" 2>"$RES/u.err" </dev/null; } 2>/dev/null)
	ust=$?
	(cd "$RUN" && { timeout -k 5 "$TMO" "$UTRACE" latency -T nap -T quick -- "$prog" \
		>"$RES/t.out" 2>"$RES/t.err" </dev/null; } 2>/dev/null)
	tst=$?
	t "$([ "$ust" = 3 ] && [ "$tst" = 3 ]; echo $?)" "$CFG latency exit status passed on (3)" \
		"untraced $ust, utrace latency $tst" "$(head -5 "$RES/t.err")"
	t "$(cmp -s "$RES/u.out" <(head -c "$(stat -c %s "$RES/u.out")" "$RES/t.out"); echo $?)" \
		"$CFG latency stdout: the program's, unchanged, first" "$(head -5 "$RES/t.out")"
	grep -Ev '^utrace (record|latency):' "$RES/t.err" >"$RES/t.err.prog"
	t "$(cmp -s "$RES/u.err" "$RES/t.err.prog"; echo $?)" "$CFG latency stderr unchanged" \
		"$(diff "$RES/u.err" "$RES/t.err.prog" | head -5)"
	latency_hist
	hdr='#   DURATION     |      COUNT | GRAPH                                          |'
	n=$(grep -cE '^  [ 0-9]{4} - [ .0-9]{4} (us|ms|s ) \| +[0-9]+ \| #* *\|$' "$RES/hist.txt")
	bad=$(awk 'NR <= 23 && length($0) != 80' "$RES/hist.txt" | head -3)
	t "$([ "$(head -1 "$RES/hist.txt")" = "$hdr" ] && [ "$n" = 22 ] && [ -z "$bad" ]; echo $?)" \
		"$CFG latency perf's layout: header, 22 buckets of 80 columns" \
		"$n bucket lines; not 80 columns: $bad" "$(head -5 "$RES/hist.txt")"
	t "$([ "$(latency_sum us)" = 20 ] && [ "$(latency_sum 'ms|s ')" = 5 ]; echo $?)" \
		"$CFG latency quick's 20 calls under 1024 us, nap's 5 from 2 ms" \
		"$(cat "$RES/hist.txt")"
	t "$(grep -qxE '       count: +25' "$RES/hist.txt" &&
		[ "$(sed -n 's/^    min time: *//p' "$RES/hist.txt")" -lt 1024 ] &&
		[ "$(sed -n 's/^    max time: *//p' "$RES/hist.txt")" -ge 2000 ]; echo $?)" \
		"$CFG latency statistics: 25 calls, min under 1024 us, max from 2000 us" \
		"$(tail -7 "$RES/hist.txt")"

	# -n --hide-empty, nap alone: 2 ms is past 2^20 ns, all in the last
	# bucket with the whole bar, the only one printed
	(cd "$RUN" && "$UTRACE" latency -n --hide-empty -T nap -- "$prog" >"$RES/t.out" 2>"$RES/t.err" </dev/null)
	tst=$?
	latency_hist
	t "$([ "$tst" = 3 ] && [ "$(sed -n 2p "$RES/hist.txt")" = \
		"     1 - ...  ms |          5 | ############################################## |" ] &&
		[ -z "$(sed -n 3p "$RES/hist.txt")" ] &&
		grep -qx '# statistics  (in nsec)' "$RES/hist.txt"; echo $?)" \
		"$CFG latency -n --hide-empty: nap's 5 calls in the last ns bucket only" \
		"status $tst" "$(cat "$RES/hist.txt")"

	# a -T that matches nothing: said in -T's terms, status 2, no histogram
	(cd "$RUN" && "$UTRACE" latency -T 'nosuch*' -T nap -- "$prog" >"$RES/t.out" 2>"$RES/t.err" </dev/null)
	tst=$?
	t "$([ "$tst" = 2 ] && cmp -s "$RES/u.out" "$RES/t.out" &&
		grep -qx "utrace latency: -T 'nosuch\*' matched no function of the traced programs (utrace list -f $prog shows them)" \
			"$RES/t.err" && ! grep -q "'nap'" "$RES/t.err"; echo $?)" \
		"$CFG latency -T of no function: said, status 2, no histogram" \
		"status $tst" "$(cat "$RES/t.err")"
	# usage errors: one line, status 2, the program never ran
	for bad in "-- $prog" "-b -T nap -- $prog" "-T nap --min-latency 5 -- $prog"; do
		# shellcheck disable=SC2086 # a word list on purpose
		"$UTRACE" latency $bad >"$RES/t.out" 2>"$RES/t.err" </dev/null
		tst=$?
		t "$([ "$tst" = 2 ] && [ ! -s "$RES/t.out" ] && [ "$(wc -l <"$RES/t.err")" = 1 ]; echo $?)" \
			"$CFG latency $bad: one-line error, status 2, nothing ran" \
			"status $tst" "$(cat "$RES/t.out" "$RES/t.err")"
	done
}

run_config() {
	set -f # record options such as "-l b*" are word lists, never globs
	CFG=$1
	BIN=$OUT/$CFG/bin
	RUN=$OUT/$CFG/run # cwd of the programs (gmon.out of -pg lands here)
	mkdir -p "$RUN"
	GOLDEN_CFG=${CONFIGS%% *}
	local entry name prog
	for entry in "${TESTS[@]}"; do
		set -- $entry
		name=$1 prog=$2
		shift 2
		want_test "$name" || continue
		if [ "$name" = recursion ]; then
			run_test "$name" "-b 4096" "$prog" "$@"
		else
			run_test "$name" "" "$prog" "$@"
		fi
	done
	for entry in "${FILTERS[@]}"; do
		name=${entry%% *}
		want_test "$name" || continue
		local ropts=${entry#* }
		ropts=${ropts%% -- *}
		set -- ${entry#* -- }
		run_test "$name" "$ropts" "$@"
	done
	want_test latency && check_latency
	want_test probe-vl && check_probe_vl
	want_test probes && check_probes_all
	want_test anybin && check_anybin_all
}

# funcgraph-args / funcgraph-retval: the values are the ones the program
# printed; what no integer register holds is "?", the seventh argument on
# is "...", a void or floating-point return has no " = ".
expect_line() { # expect_line WHAT EXTENDED-REGEX
	if grep -Eq "$2" "$REP"; then ok "$1"; else nok "$1" "no line matching '$2'" "report: $REP"; fi
}
check_fg_args() {
	local count total scale
	count=$(sed -n 's/^count=\([0-9]*\) .*/\1/p' "$RES/u.out")
	total=$(sed -n 's/^total=\([0-9]*\) .*/\1/p' "$RES/u.out")
	scale=$(sed -n 's/.* scale=\([0-9]*\)$/\1/p' "$RES/u.out")
	expect_balanced "$CFG $TEST braces balance"
	expect_line "$CFG $TEST main's argc, argv" '\|  main\(argc=1, argv=0x[0-9a-f]+\) \{$'
	expect_line "$CFG $TEST walk(count=$count) = $total" \
		"\\|    walk\\(p=0x[0-9a-f]+, count=$count, buf=0x[0-9a-f]+\\); /\\* = $total \\*/\$"
	expect_line "$CFG $TEST scale(n=3) = $scale" \
		"\\|    scale\\(n=3, label=0x[0-9a-f]+\\); /\\* = $scale \\*/\$"
	expect_line "$CFG $TEST main's return" '\|  \} /\* main = 0 \*/$'
	# addresses change from run to run (ASLR): masked for the golden
	sed -E 's/0x[0-9a-f]+/0xADDR/g' "$REP" >"$RES/rep-noaddr.txt"
	local REP=$RES/rep-noaddr.txt
	check_golden fg-args
}
check_fg_retval() {
	expect_balanced "$CFG $TEST braces balance"
	expect_line "$CFG $TEST no arguments without funcgraph-args" '\|  main\(\) \{$'
	expect_line "$CFG $TEST walk's return" "\\|    walk\\(\\); /\\* = $(sed -n 's/^total=\([0-9]*\) .*/\1/p' "$RES/u.out") \\*/\$"
	"$UTRACE" report -O funcgraph-retval-hex -i "$RES/trace.dat" >"$RES/hex.txt" 2>&1
	local REP=$RES/hex.txt
	expect_line "$CFG $TEST funcgraph-retval-hex" \
		"\\|    walk\\(\\); /\\* = 0x$(printf %x "$(sed -n 's/^total=\([0-9]*\) .*/\1/p' "$RES/u.out")") \\*/\$"
}
check_fg_abi() {
	local int8
	int8=$(sed -n 's/^int8 = //p' "$RES/u.out")
	expect_balanced "$CFG $TEST braces balance"
	expect_line "$CFG $TEST six integer registers, then ..." \
		"int8\\(a=1, b=2, c=3, d=4, e=5, f=6, \\.\\.\\.\\); /\\* = $int8 \\*/\$"
	expect_line "$CFG $TEST floats are not in integer registers" \
		'mixed\(a=1, b=\?, c=3, d=\?, e=5, f=\?\);$'
	expect_line "$CFG $TEST a result in memory: its address in rdi first" \
		'ret_big\(base=100\); /\* = 0x[0-9a-f]+\(trunc\) \*/$'
	expect_line "$CFG $TEST a struct by value is in memory" 'by_value\(b=\?, k=2\); /\* = -?[0-9]+ \*/$'
	expect_line "$CFG $TEST no return value for a floating-point result" 'ret_ld\(x=\?\);$'
}

# utrace probe -V / -L on dwarfargs (this configuration's DWARF) against
# this configuration's golden (what a probe sees differs with the compiler
# and -O), and against perf probe's own output where perf is installed.
check_probe_vl() {
	local prog=$BIN/dwarfargs line g=$GOLDEN/probe-vl-$CFG.txt
	RES=$OUT/$CFG/probe-vl
	mkdir -p "$RES"
	line=$(grep -n 'total += p->len' "$PROGS/dwarfargs.c" | cut -d: -f1)
	{
		"$UTRACE" probe -V walk -x "$prog"
		"$UTRACE" probe -V "dwarfargs.c:$line" -- "$prog"
		"$UTRACE" probe -L walk -x "$prog"
		"$UTRACE" probe -L scale -x "$prog"
	} >"$RES/vl.txt" 2>&1
	sed "s|$PROGS/|PROGS/|g" "$RES/vl.txt" >"$RES/masked.txt"
	if [ "${UTRACE_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$RES/masked.txt" "$g"
		ok "$CFG probe-vl golden (updated $g)"
	elif diff -u "$g" "$RES/masked.txt" >"$RES/golden.diff"; then
		ok "$CFG probe-vl golden"
	else
		nok "$CFG probe-vl golden" "$(head -30 "$RES/golden.diff")"
	fi
	# perf 6.1 reads clang's DWARF 5 file 0 wrong (and crashes on -L): gcc only
	if command -v perf >/dev/null && [ "$(config_cc "$CFG")" = gcc ]; then
		{
			perf probe -x "$prog" -V walk
			perf probe -x "$prog" -V "dwarfargs.c:$line"
			perf probe -x "$prog" -L walk
			perf probe -x "$prog" -L scale
		} >"$RES/perf.txt" 2>&1
		diff -u "$RES/perf.txt" "$RES/vl.txt" >"$RES/perf.diff"
		t $? "$CFG probe-vl same as perf probe -V/-L" "$(head -30 "$RES/perf.diff")"
	fi
}

# ---------------------------------------------------------------- tool checks

tool_checks() {
	local d=$OUT/tool out st n
	rm -rf "$d"
	mkdir -p "$d"
	cd "$d" || return

	out=$("$UTRACE" cflags 2>&1)
	case " $out " in
	*" -fpatchable-function-entry=5 "*) ok "tool cflags (patchable)" ;;
	*) nok "tool cflags (patchable)" "utrace cflags printed '$out'" ;;
	esac
	out=$("$UTRACE" cflags --cc gcc --mcount 2>&1)
	# gcc's __mcount_loc records get utrace's assembler fix (-B .../gcc-as/)
	if [ "$(echo $out | sed 's| -B[^ ]*/gcc-as/$||')" = "$MCOUNT_FLAGS" ] &&
		[ -x "$(echo $out | sed -n 's|.* -B\([^ ]*/gcc-as/\)$|\1|p')as" ]; then
		ok "tool cflags --mcount"
	else
		nok "tool cflags --mcount" "printed '$out'" "expected '$MCOUNT_FLAGS'"
	fi
	if "$UTRACE" cflags --cc clang --mcount >/dev/null 2>"$d/err"; then
		nok "tool cflags --cc clang --mcount refused" "exit 0, clang has no -mnop-mcount"
	else
		ok "tool cflags --cc clang --mcount refused"
	fi

	# one-line errors and a non-zero status for bad usage
	bad_usage() { # bad_usage WHAT ARGS...
		local what=$1
		shift
		"$UTRACE" "$@" >"$d/out" 2>"$d/err" </dev/null
		st=$?
		n=$(wc -l <"$d/err")
		if [ "$st" -ne 0 ] && [ "$st" -lt 128 ] && [ "$n" -eq 1 ]; then
			ok "tool $what: one-line error, status $st"
		else
			nok "tool $what: one-line error" "status $st, $n lines on stderr:" "$(head -5 "$d/err")"
		fi
	}
	bad_usage "record --no-such-option" record --no-such-option -- /bin/true
	bad_usage "record -p no-such-tracer" record -p no-such-tracer -o "$d/x.dat" -- /bin/true
	bad_usage "record --max-graph-depth abc" record --max-graph-depth abc -o "$d/x.dat" -- /bin/true
	bad_usage "report -i missing file" report -i "$d/does-not-exist.dat"
	bad_usage "unknown command" no-such-command

	"$UTRACE" record -o "$d/none.dat" -- "$d/no-such-program" >"$d/out" 2>"$d/err" </dev/null
	st=$?
	if [ "$st" -ne 0 ] && grep -q '^utrace record:' "$d/err"; then
		ok "tool record of a missing program fails (status $st)"
	else
		nok "tool record of a missing program fails" "status $st" "$(head -3 "$d/err")"
	fi

	"$UTRACE" record -o "$d/true.dat" -- /bin/true >"$d/out" 2>"$d/err" </dev/null
	st=$?
	if [ "$st" = 0 ] && "$UTRACE" report -i "$d/true.dat" >"$d/rep" 2>"$d/err2"; then
		ok "tool record of an uninstrumented program"
	else
		nok "tool record of an uninstrumented program" "record status $st" "$(head -3 "$d/err" "$d/err2")"
	fi
	t "$(grep -q 'bin/true has no call sites: [0-9]* of [0-9]* functions patched at their entry' "$d/err"; echo $?)" \
		"tool record says a program has no call sites and patches its entries" "$(cat "$d/err")"

	"$UTRACE" record -o "$d/sh.dat" -- /bin/sh -c 'exit 7' >"$d/out" 2>"$d/err" </dev/null
	st=$?
	t "$([ "$st" = 7 ]; echo $?)" "tool exit status of the command passed on (7)" "got $st"
	{ "$UTRACE" record -o "$d/sh2.dat" -- /bin/sh -c 'kill -TERM $$' >"$d/out" 2>"$d/err" </dev/null; } 2>/dev/null
	st=$?
	t "$([ "$st" = 143 ]; echo $?)" "tool death by SIGTERM passed on as 143" "got $st"

	local simple=$OUT/gcc-O0-patch/bin/simple
	[ -x "$simple" ] || simple=$(ls "$OUT"/*/bin/simple 2>/dev/null | head -1)
	if [ -n "$simple" ] && [ -x "$simple" ]; then
		"$UTRACE" list -f "$simple" >"$d/list" 2>"$d/err"
		st=$?
		local missing=""
		for f in main a b c; do
			grep -Eq "(^|[^A-Za-z0-9_])$f([^A-Za-z0-9_]|$)" "$d/list" || missing="$missing $f"
		done
		if [ "$st" = 0 ] && [ -z "$missing" ]; then
			ok "tool list -f simple"
		else
			nok "tool list -f simple" "status $st, missing:$missing" "$(head -5 "$d/list" "$d/err")"
		fi

		"$UTRACE" record -l 'nosuch*' -l main -o "$d/l.dat" -- "$simple" >/dev/null 2>"$d/l.err" </dev/null
		t "$(grep -q "^utrace record: -l 'nosuch\*' matched no function" "$d/l.err" &&
			! grep -q "'main' matched no" "$d/l.err"; echo $?)" \
			"tool record warns of a -l pattern that matches nothing, not of one that does" \
			"$(cat "$d/l.err")"

		# an event that exists nowhere: an error before anything runs
		"$UTRACE" record -e nosys:noev -o "$d/ne.dat" -- "$simple" >"$d/ne.out" 2>"$d/ne.err" </dev/null
		st=$?
		t "$([ "$st" = 2 ] && [ ! -s "$d/ne.out" ] &&
			grep -q '^utrace record: -e nosys:noev: no such event' "$d/ne.err"; echo $?)" \
			"tool record -e of no event: status 2, the program never ran" \
			"status $st, stdout $(wc -c <"$d/ne.out") bytes: $(cat "$d/ne.err")"
		# a bad trigger: the kernel's message and a caret under its column,
		# before anything runs
		local hprog=$OUT/${CONFIGS%% *}/bin/hist
		if [ -x "$hprog" ]; then
			"$UTRACE" record -e hist:hist_req -R 'hist:keys=id:vals=nosuch' -o "$d/hb.dat" \
				-- "$hprog" >"$d/hb.out" 2>"$d/hb.err" </dev/null
			st=$?
			t "$([ "$st" = 2 ] && [ ! -s "$d/hb.out" ] &&
				grep -qx "utrace record: -R: Couldn't find field: nosuch" "$d/hb.err" &&
				grep -qx '                    ^' "$d/hb.err"; echo $?)" \
				"tool record -R with a field the event lacks: the kernel's error, caret, nothing ran" \
				"status $st: $(cat "$d/hb.err")"
			"$UTRACE" record -e hist:hist_req -R 'hist:keys=id:sort=nosuch' -o "$d/hb.dat" \
				-- "$hprog" >"$d/hb.out" 2>"$d/hb.err" </dev/null
			st=$?
			t "$([ "$st" = 2 ] && grep -q "Sort field must be a key or a val" "$d/hb.err"; echo $?)" \
				"tool record -R with a bad sort key: the kernel's error" "status $st: $(cat "$d/hb.err")"
		fi
		[ -x "$hprog" ] && trigger_commands "$d" "$hprog" "$(dirname "$hprog")/tracepoints"
		[ -x "$(dirname "$hprog")/synth" ] && synth_commands "$d" "$(dirname "$hprog")/synth"
		# kernel events without access to tracefs: say so, before running
		if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
			mkdir -p "$d/nobody" && chmod 777 "$d/nobody"
			(cd "$d/nobody" && setpriv --reuid=65534 --regid=65534 --clear-groups \
				"$UTRACE" record -e sched:sched_switch -o "$d/nobody/k.dat" -- "$simple" \
				>"$d/nobody/out" 2>"$d/nobody/err" </dev/null)
			st=$?
			t "$([ "$st" = 2 ] && [ ! -s "$d/nobody/out" ] &&
				grep -q 'kernel events need access to tracefs' "$d/nobody/err"; echo $?)" \
				"tool record -e sched:sched_switch as a user: tracefs access said, nothing ran" \
				"status $st: $(cat "$d/nobody/err")"
		fi

		noloss_stopped_recorder
		# a cut trace file (a recorder killed mid-way) must not crash report
		"$UTRACE" record -o "$d/full.dat" -- "$simple" >/dev/null 2>"$d/full.err" </dev/null
		local size said
		size=$(stat -c %s "$d/full.dat" 2>/dev/null || echo 0)
		said=$(sed -n 's/.* saved to .* (\([0-9]*\) bytes)$/\1/p' "$d/full.err")
		t "$([ "$said" = "$size" ]; echo $?)" "tool record says the file's size ($size bytes)" \
			"record said ${said:-nothing}"
		if [ "$size" -gt 0 ]; then
			local cut bad=""
			for cut in 1 2 3 5 7; do
				head -c $((size * cut / 8)) "$d/full.dat" >"$d/cut.dat"
				{ timeout -k 5 "$TMO" "$UTRACE" report -i "$d/cut.dat" >"$d/cut.rep" 2>"$d/cut.err"; } 2>/dev/null
				st=$?
				[ "$st" -ge 124 ] && bad="$bad $cut/8 of the file: status $st;"
			done
			t "$([ -z "$bad" ]; echo $?)" "tool report of a cut trace file does not crash" "$bad"
		else
			nok "tool report of a cut trace file does not crash" "could not record $simple"
		fi
	fi
}

# No-loss mode must not hang a program on a recorder that saves nothing
# (here: stopped by SIGSTOP once the program is in its loop): the program
# waits UTRACE_RB_BLOCK_TIMEOUT_MS (1 s), then drops and counts as --drop
# does, and finishes while the recorder is still stopped.
noloss_stopped_recorder() {
	local d=$OUT/tool longrun rpid i size=0
	longrun=$(ls "$OUT"/*/bin/longrun 2>/dev/null | head -1)
	[ -n "$longrun" ] || return
	rm -f "$d/stop.done"
	"$UTRACE" record -b 64 -o "$d/stop.dat" -- /bin/sh -c \
		"'$longrun' 5000000 >/dev/null; touch '$d/stop.done'" >/dev/null 2>"$d/stop.err" </dev/null &
	rpid=$!
	# a file of 1 MB: longrun registered and is in its loop
	for i in $(seq 200); do
		size=$(stat -c %s "$d/stop.dat" 2>/dev/null || echo 0)
		[ "$size" -gt $((1 << 20)) ] && break
		sleep 0.05
	done
	kill -STOP "$rpid"
	for i in $(seq 300); do
		[ -e "$d/stop.done" ] && break
		sleep 0.1
	done
	kill -CONT "$rpid"
	wait "$rpid"
	t "$([ -e "$d/stop.done" ]; echo $?)" \
		"tool record (no-loss): a stopped recorder does not hang the program" \
		"longrun had not finished 30 s after the recorder was stopped ($size bytes then)"
	t "$(grep -Eq '^utrace record: [0-9]+ records \([1-9][0-9]* lost\)' "$d/stop.err"; echo $?)" \
		"tool record (no-loss): what a stopped recorder could not take is counted lost" \
		"$(head -3 "$d/stop.err")"
}

# ---------------------------------------------------------------- comdat

# A program of two C++ files that both instantiate the same inline
# functions (the linker keeps one COMDAT copy): every function of both
# files is a call site and traced, with utrace cflags (gcc gets its
# records fixed by gcc-as/as) and, for g++, with the bare flag too (the
# records of b.cc are lost; the sites come from the symbols, with a
# warning).  --mcount links and traces as well.
comdat_run() { # comdat_run NAME CXX FLAGS [LDFLAGS]
	local name=$1 cxx=$2 flags=$3 ldflags=${4:-} d=$OUT/comdat/$1 st
	mkdir -p "$d"
	# shellcheck disable=SC2086
	if ! (cd "$d" && $cxx $flags -c "$E2E/comdat/a.cc" "$E2E/comdat/b.cc" &&
		$cxx $ldflags -o ab a.o b.o) >"$d/cc.log" 2>&1; then
		nok "comdat $name: builds and links" "$(head -5 "$d/cc.log")"
		return 1
	fi
	ok "comdat $name: builds and links"
	"$UTRACE" list -f "$d/ab" >"$d/list" 2>"$d/list.err"
	t "$(for f in main first_b first_a use_a 'D::f()'; do grep -q "^$f" "$d/list" || echo "$f"; done |
		grep -q .; [ $? = 1 ]; echo $?)" "comdat $name: list -f has every function of both files" \
		"$(tr '\n' ' ' <"$d/list")"
	(cd "$d" && "$UTRACE" record -o t.dat -- ./ab >out 2>rec.err)
	st=$?
	t "$([ "$st" = 0 ] && "$UTRACE" report -i "$d/t.dat" 2>/dev/null | grep -q 'main() {'; echo $?)" \
		"comdat $name: main is traced" "status $st: $(cat "$d/rec.err")"
}

comdat_checks() {
	local cxx o cf
	for cxx in g++ clang++; do
		command -v "$cxx" >/dev/null || continue
		cf=$("$UTRACE" cflags --cc "$cxx")
		for o in -O0 -O2; do
			comdat_run "$cxx$o" "$cxx" "$o $cf"
		done
	done
	if command -v g++ >/dev/null; then
		comdat_run "g++-O2-bare" g++ "-O2 -fpatchable-function-entry=5" &&
			t "$(grep -q 'found from its symbols' "$OUT/comdat/g++-O2-bare/list.err" ||
				! grep -q 'some functions start with' "$OUT/comdat/g++-O2-bare/rec.err"
				echo $?)" "comdat g++-O2-bare: the lost records are said" \
			"$(cat "$OUT/comdat/g++-O2-bare/list.err")"
		comdat_run "g++-O2-mcount" g++ "-O2 $("$UTRACE" cflags --cc g++ --mcount)" \
			"$("$UTRACE" cflags --cc g++ --mcount --ldflags)"
	fi
}

# ---------------------------------------------------------------- install

# make install DESTDIR=... PREFIX=/usr, then use only the installed tree:
# --version, a program built with pkg-config's flags and `utrace cflags`,
# traced (the runtime found in ../lib), the man page, the completion.
install_checks() {
	local d=$OUT/install root st flags
	rm -rf "$d"
	mkdir -p "$d"
	root=$d/root
	if ! make -s -C "$ROOT" install DESTDIR="$root" PREFIX=/usr >"$d/make.log" 2>&1; then
		nok "install: make install DESTDIR PREFIX=/usr" "$(tail -5 "$d/make.log")"
		return
	fi
	ok "install: make install DESTDIR PREFIX=/usr"
	t "$("$root/usr/bin/utrace" --version | grep -qx "utrace $(cat "$ROOT/VERSION")"; echo $?)" \
		"install: utrace --version" "$("$root/usr/bin/utrace" --version 2>&1)"
	flags=$(PKG_CONFIG_PATH=$root/usr/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root \
		pkg-config --cflags --libs utrace 2>"$d/pc.err")
	t "$(echo "$flags" | grep -q -- "-I$root/usr/include.*-lutrace"; echo $?)" \
		"install: pkg-config --cflags --libs utrace" "$flags $(cat "$d/pc.err")"
	# shellcheck disable=SC2046,SC2086 # the flags are word lists
	cc $("$root/usr/bin/utrace" cflags) -I"$ROOT/examples" -o "$d/wf" "$ROOT/examples/wordfreq.c" \
		$flags >"$d/cc.log" 2>&1
	t "$?" "install: a program with tracepoints built against the installed tree" \
		"$(head -5 "$d/cc.log")"
	(cd "$d" && LD_LIBRARY_PATH=$root/usr/lib "$root/usr/bin/utrace" record -e demo:demo_word \
		-o i.dat -- ./wf >/dev/null 2>rec.err)
	st=$?
	t "$([ "$st" = 0 ] && "$root/usr/bin/utrace" report -i "$d/i.dat" 2>/dev/null |
		grep -q 'demo_word: word=the'; echo $?)" \
		"install: the installed utrace traces it (calls and tracepoints)" "status $st: $(cat "$d/rec.err")"
	if command -v man >/dev/null; then
		MANPATH=$root/usr/share/man man utrace-record 2>/dev/null | head -5 >"$d/man.txt"
		t "$(grep -q 'utrace record - run a command' "$d/man.txt"; echo $?)" \
			"install: man utrace-record" "$(cat "$d/man.txt")"
	fi
	t "$(bash -c ". '$root/usr/share/bash-completion/completions/utrace'
		PATH='$root/usr/bin':\$PATH; COMP_WORDS=(utrace record --ove); COMP_CWORD=2; _utrace
		[ \"\${COMPREPLY[*]}\" = --overwrite ]"; echo $?)" "install: bash completion of an option"
}

# ---------------------------------------------------------------- build

# Writes $OUT/<config>/cflags (only when it changed, so make rebuilds only
# then) and the make rules for that configuration.
gen_config() {
	local cfg=$1 cc cxx opt flags pflags ldflags dir
	cc=$(config_cc "$cfg")
	cxx=$(config_cxx "$cfg")
	opt=$(config_opt "$cfg")
	dir=$OUT/$cfg
	mkdir -p "$dir/bin"
	case $cfg in
	*-mcount)
		flags=$("$UTRACE" cflags --cc "$cc" --mcount 2>"$dir/cflags.err") || return 1
		# compile with the flags, link without -pg (no gprof start-up)
		ldflags=$("$UTRACE" cflags --cc "$cc" --mcount --ldflags 2>>"$dir/cflags.err") || return 1
		# gcc cannot combine -mnop-mcount with -fPIC: the plugin uses
		# the patchable entry (one process, objects of both kinds)
		pflags=$("$UTRACE" cflags --cc "$cc" 2>>"$dir/cflags.err") || return 1
		;;
	*)
		flags=$("$UTRACE" cflags --cc "$cc" 2>"$dir/cflags.err") || return 1
		ldflags=""
		pflags=$flags
		;;
	esac
	flags=$(echo $flags)
	pflags=$(echo $pflags)
	printf '%s\n%s\n%s\n%s %s %s\n' "$flags" "$pflags" "$ldflags" "$cc" "$cxx" "$opt" >"$dir/cflags.new"
	if cmp -s "$dir/cflags.new" "$dir/cflags"; then rm -f "$dir/cflags.new"; else mv "$dir/cflags.new" "$dir/cflags"; fi

	local base="-g -Wall -Wextra -Werror $opt -I$ROOT/include -I$PROGS"
	local src p
	echo "all: all-$cfg"
	local targets=""
	for src in "$PROGS"/*.c "$PROGS"/*.cc; do
		p=$(basename "$src")
		p=${p%.*}
		[ "$p" = plugin ] && continue
		targets="$targets $dir/bin/$p"
		echo "$dir/bin/$p: $src $PROGS/*.h $ROOT/include/utrace/*.h $dir/cflags"
		case $src in
		*.cc) printf '\t@{ %s %s %s -c -o $@.o %s && %s %s -o $@ $@.o -pthread; } >$@.log 2>&1 || { cat $@.log; rm -f $@; exit 1; }\n' "$cxx" "$base" "$flags" "$src" "$cxx" "$ldflags" ;;
		*) printf '\t@{ %s -std=gnu11 %s %s -c -o $@.o %s && %s %s -o $@ $@.o -pthread -ldl -lm; } >$@.log 2>&1 || { cat $@.log; rm -f $@; exit 1; }\n' "$cc" "$base" "$flags" "$src" "$cc" "$ldflags" ;;
		esac
	done
	targets="$targets $dir/bin/libplugin.so"
	echo "$dir/bin/libplugin.so: $PROGS/plugin.c $PROGS/progs.h $dir/cflags"
	printf '\t@%s -std=gnu11 %s %s -fPIC -shared -o $@ %s >$@.log 2>&1 || { cat $@.log; rm -f $@; exit 1; }\n' "$cc" "$base" "$pflags" "$PROGS/plugin.c"
	echo "all-$cfg:$targets"
}

build_all() {
	local mk=$OUT/build.mk cfg built=""
	mkdir -p "$OUT"
	: >"$mk.new"
	for cfg in $CONFIGS; do
		local cc cxx
		cc=$(config_cc "$cfg")
		cxx=$(config_cxx "$cfg")
		if [ -z "$cc" ] || [ -z "$(config_opt "$cfg")" ]; then
			nok "$cfg build" "unknown configuration"
			continue
		fi
		if ! command -v "$cc" >/dev/null || ! command -v "$cxx" >/dev/null; then
			nok "$cfg build" "$cc or $cxx is not installed"
			continue
		fi
		if ! gen_config "$cfg" >>"$mk.new"; then
			nok "$cfg cflags" "utrace cflags failed:" "$(head -3 "$OUT/$cfg/cflags.err")"
			continue
		fi
		built="$built $cfg"
	done
	mv "$mk.new" "$mk"
	BUILT_CONFIGS=${built# }
	[ -z "$BUILT_CONFIGS" ] && return
	make -k -j"$JOBS" -f "$mk" all >"$OUT/build.log" 2>&1
	local p src
	for cfg in $BUILT_CONFIGS; do
		local missing=""
		for src in "$PROGS"/*.c "$PROGS"/*.cc; do
			p=$(basename "$src")
			p=${p%.*}
			[ "$p" = plugin ] && p=libplugin.so
			[ -e "$OUT/$cfg/bin/$p" ] || missing="$missing $p"
		done
		if [ -z "$missing" ]; then
			ok "$cfg build"
		else
			nok "$cfg build" "not built:$missing" "$(for p in $missing; do head -3 "$OUT/$cfg/bin/$p.log" 2>/dev/null; done | head -12)"
		fi
	done
}

# ---------------------------------------------------------------- main

if [ "$MODE" = --config ]; then
	UTRACE=${UTRACE_E2E_TOOL:-$UTRACE}
	run_config "$3"
	exit 0
fi

main() {
	if [ ! -x "$UTRACE" ] || [ ! -f "$B/libutrace.so" ]; then
		nok "setup" "$UTRACE or $B/libutrace.so is missing (run make)"
		return
	fi
	# Test one consistent copy of the tool and its runtime (utrace finds
	# libutrace.so next to itself), even if the build directory is
	# rebuilt while the tests run.
	if [ "${UTRACE_E2E_SNAPSHOT:-1}" = 1 ]; then
		rm -rf "$OUT/.tool"
		mkdir -p "$OUT/.tool"
		cp -r "$UTRACE" "$B/libutrace.so" "$B/gcc-as" "$OUT/.tool/" || {
			nok "setup" "cannot copy the tool to $OUT/.tool"
			return
		}
		UTRACE=$OUT/.tool/utrace
		export UTRACE_E2E_TOOL=$UTRACE
	fi
	build_all
	local cfg jobs=$JOBS
	# golden updates come from the first configuration: run it first, alone
	[ "${UTRACE_GOLDEN_UPDATE:-0}" = 1 ] && jobs=1
	for cfg in $BUILT_CONFIGS; do rm -f "$OUT/$cfg/results.txt"; done
	printf '%s\n' $BUILT_CONFIGS | xargs -r -P "$jobs" -I{} \
		sh -c 'UTRACE_E2E_CONFIGS="$3" "$0" "$1" --config "$2" >"$4/$2/results.txt" 2>&1' \
		"$0" "$B" {} "$CONFIGS" "$OUT"
	for cfg in $BUILT_CONFIGS; do cat "$OUT/$cfg/results.txt"; done
	want_test tool && tool_checks
	want_test install && install_checks
	want_test comdat && comdat_checks
	want_test libcall && libcall_checks
	want_test anybin && check_anybin_why
	want_test anybin && check_anybin_dist
}

mkdir -p "$OUT"
main | tee "$OUT/e2e.log.tmp" 2>/dev/null || true
passed=$(grep -c '^ok - ' "$OUT/e2e.log.tmp" 2>/dev/null)
failed=$(grep -c '^not ok - ' "$OUT/e2e.log.tmp" 2>/dev/null)
mv -f "$OUT/e2e.log.tmp" "$OUT/e2e.log" 2>/dev/null
echo "e2e: ${passed:-0} passed, ${failed:-0} failed"
[ "${failed:-0}" = 0 ] && [ "${passed:-0}" != 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/e2e/run.sh BUILD_DIR [TEST...] - the end-to-end tier (docs/testing.md).
#
# For every compiler configuration in the matrix
#   {gcc, clang} x {-O0, -O2} x {patchable (utrace cflags), mcount (gcc only)}
# builds tests/progs/ into tests/out/<config>/bin/, then runs the tests:
# one file each in tests/e2e/t/, named by feature (graph-*, flt-*, tp-*,
# hist-*, probes-*, lc-*, anybin-*, ...), each with its program (or the
# name of one in tests/progs/), its command and its checks; the helpers
# they share are in tests/e2e/lib.sh, the goldens in tests/e2e/golden/.
# Most tests run each program untraced and under `utrace record` and check
# that the tracer did not disturb it (same stdout, same stderr, same exit
# status or terminating signal) and that `utrace report` shows what must
# be there; the others run a function of their own, in every
# configuration or once.
#
# TEST: only these tests: a file of tests/e2e/t/ (graph-simple, or its
# path) or a test's name (simple, flt-l, probes, tool); `make test T=NAME`.
# `run.sh BUILD_DIR --list` lists the files and the tests each registers.
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

# Each file of tests/e2e/t/ registers its tests with one of:
#   e2e_test "NAME [RECORD-OPTIONS] -- PROGRAM [ARGS]"
#       in every configuration: PROGRAM (of tests/progs) run untraced and
#       under `utrace record RECORD-OPTIONS`, compared, reported, then
#       check_NAME (dashes become underscores) if the file defines it
#   e2e_cfg NAME GROUP|- COMMAND [ARGS]    in every configuration: COMMAND
#   e2e_once NAME GROUP|- COMMAND [ARGS]   once, after the configurations
# GROUP names several tests at once (probes, anybin, tool).
E2E_TESTS=()
E2E_CFG=()
E2E_ONCE=()
declare -A E2E_OF_FILE=() # file (without .sh) -> the names it registers
E2E_NAMES=" "             # every test and group name
E2E_FILE=
e2e_named() { # e2e_named NAME [GROUP]
	local f=${E2E_FILE##*/}
	f=${f%.sh}
	E2E_OF_FILE[$f]="${E2E_OF_FILE[$f]:-}$1 "
	E2E_NAMES="$E2E_NAMES$1 "
	[ "${2:--}" != - ] && E2E_NAMES="$E2E_NAMES$2 "
	return 0
}
e2e_test() { E2E_TESTS+=("$1"); e2e_named "${1%% *}"; }
e2e_cfg() { E2E_CFG+=("$*"); e2e_named "$1" "$2"; }
e2e_once() { E2E_ONCE+=("$*"); e2e_named "$1" "$2"; }

ulimit -c 0

# shellcheck source=tests/e2e/lib.sh
. "$E2E/lib.sh"
for E2E_FILE in "$E2E"/t/*.sh; do
	# shellcheck disable=SC1090
	. "$E2E_FILE"
done

# run.sh BUILD_DIR --list: each file of t/ and the tests it registers
if [ "$MODE" = --list ]; then
	for f in "$E2E"/t/*.sh; do
		f=${f##*/}
		echo "$f: ${E2E_OF_FILE[${f%.sh}]% }"
	done
	echo "groups: $(printf '%s\n' "${E2E_CFG[@]}" "${E2E_ONCE[@]}" | awk '$2 != "-" { print $2 }' | sort -u | paste -sd ' ')"
	exit 0
fi

# run.sh BUILD_DIR TEST...: the tests of a file of t/ (its name, with or
# without .sh, or its path), or tests and groups by name
E2E_UNKNOWN=
if [ $# -gt 1 ] && [ "$MODE" != --config ]; then
	UTRACE_E2E_TESTS=
	for n in "${@:2}"; do
		f=${n##*/}
		f=${f%.sh}
		if [ -n "${E2E_OF_FILE[$f]:-}" ]; then
			UTRACE_E2E_TESTS="$UTRACE_E2E_TESTS${E2E_OF_FILE[$f]}"
		elif [[ $E2E_NAMES == *" $f "* ]]; then
			UTRACE_E2E_TESTS="$UTRACE_E2E_TESTS$f "
		else
			E2E_UNKNOWN="$E2E_UNKNOWN $n"
		fi
	done
	export UTRACE_E2E_TESTS
fi

want_test() { # want_test NAME [GROUP]
	[ -z "${UTRACE_E2E_TESTS:-}" ] && return 0
	case " $UTRACE_E2E_TESTS " in *" $1 "*) return 0 ;; esac
	case " $UTRACE_E2E_TESTS " in *" ${2:--} "*) return 0 ;; esac
	return 1
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

run_config() {
	set -f # record options such as "-l b*" are word lists, never globs
	CFG=$1
	BIN=$OUT/$CFG/bin
	RUN=$OUT/$CFG/run # cwd of the programs (gmon.out of -pg lands here)
	mkdir -p "$RUN"
	GOLDEN_CFG=${CONFIGS%% *}
	local entry name ropts
	for entry in "${E2E_TESTS[@]}"; do
		name=${entry%% *}
		want_test "$name" || continue
		ropts=" ${entry#* }"
		ropts=${ropts%% -- *}
		set -- ${entry#* -- }
		run_test "$name" "${ropts# }" "$@"
	done
	for entry in "${E2E_CFG[@]}"; do
		set -- $entry
		want_test "$1" "$2" || continue
		shift 2
		"$@"
	done
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
	local n
	for n in $E2E_UNKNOWN; do
		nok "e2e: no test $n" "the tests are the files of $E2E/t/ and the names they register"
	done
	# only unknown names: nothing to run
	[ -n "$E2E_UNKNOWN" ] && [ -z "$UTRACE_E2E_TESTS" ] && return
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
	local entry a
	for entry in "${E2E_ONCE[@]}"; do
		read -r -a a <<<"$entry"
		want_test "${a[0]}" "${a[1]}" || continue
		"${a[@]:2}"
	done
}

mkdir -p "$OUT"
main | tee "$OUT/e2e.log.tmp" 2>/dev/null || true
passed=$(grep -c '^ok - ' "$OUT/e2e.log.tmp" 2>/dev/null)
failed=$(grep -c '^not ok - ' "$OUT/e2e.log.tmp" 2>/dev/null)
mv -f "$OUT/e2e.log.tmp" "$OUT/e2e.log" 2>/dev/null
echo "e2e: ${passed:-0} passed, ${failed:-0} failed"
[ "${failed:-0}" = 0 ] && [ "${passed:-0}" != 0 ]

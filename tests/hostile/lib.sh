# SPDX-License-Identifier: MIT
#
# tests/hostile/lib.sh - what every tests/hostile/*.sh shares.  A script
# sources it first, its arguments unchanged:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# It brings tests/kernel/lib.sh (ROOT, B, U, ok, notok, check, unsupported,
# need_root, until_ok, ...) and adds:
#   W                       a fresh folder for this script, removed on exit
#   HP                      tests/hostile/progs (the programs' sources)
#   build NAME SRC [CC [OPT [FLAGS...]]]
#                           compile SRC (relative to HP, or absolute) with
#                           `utrace cflags`, CC (default gcc) at OPT (default
#                           -O2) into $W/NAME; notok and return 1 on failure
#   run_plain OUT CMD...    run CMD untraced: OUT.out (stdout), OUT.err
#                           (stderr), OUT.rc (exit status)
#   run_traced OUT OPTS -- CMD...
#                           the same under `utrace record -o OUT.dat OPTS
#                           -- CMD`, at most HOSTILE_LIMIT seconds (120: a
#                           hang fails with status 124); OUT.rec holds the recorder's own lines
#                           (the program's stderr still goes to OUT.err
#                           only where the program did not redirect it)
#   same_run WHAT OUT_A OUT_B
#                           ok when stdout and exit status are the same,
#                           else notok with the difference
#   each_mode               the modes every program runs in, one per line:
#                           "-p function", "-p function_graph", ...
. "$(dirname "${BASH_SOURCE[0]}")/../kernel/lib.sh"
HP=$ROOT/tests/hostile/progs
W=$(mktemp -d "${TMPDIR:-/tmp}/utrace-hostile.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT

build() { # build NAME SRC [CC [OPT [FLAGS...]]]
	local name=$1 src=$2 cc=${3:-gcc} opt=${4:--O2}
	shift $(($# < 4 ? $# : 4))
	[[ $src = /* ]] || src=$HP/$src
	# shellcheck disable=SC2046 # cflags is a list of flags
	if ! "$cc" $("$U" cflags --cc "$cc") "$opt" -g -o "$W/$name" "$src" "$@" \
		-lpthread 2>"$W/$name.build"; then
		notok "build $name ($cc $opt)"
		sed 's/^/#   /' "$W/$name.build" | head -20
		return 1
	fi
}

run_plain() { # run_plain OUT CMD...
	local o=$1
	shift
	"$@" >"$o.out" 2>"$o.err"
	echo $? >"$o.rc"
}

run_traced() { # run_traced OUT OPTS... -- CMD...
	local o=$1 opts=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	# bounded: a deadlock fails (status 124) instead of hanging the tier
	timeout -k 5 "${HOSTILE_LIMIT:-120}" "$U" record -o "$o.dat" "${opts[@]}" -- "$@" \
		>"$o.out" 2>"$o.err"
	echo $? >"$o.rc"
	grep -E '^utrace( [a-z]+)?(\[[0-9]+\])?:' "$o.err" >"$o.rec"
}

same_run() { # same_run WHAT OUT_A OUT_B
	local what=$1 a=$2 b=$3
	if cmp -s "$a.out" "$b.out" && cmp -s "$a.rc" "$b.rc"; then
		ok "$what"
		return 0
	fi
	notok "$what"
	echo "#   exit status $(cat "$a.rc") untraced, $(cat "$b.rc") traced"
	diff "$a.out" "$b.out" | head -10 | sed 's/^/#   /'
	[ -f "$b.rec" ] && sed 's/^/#   recorder: /' "$b.rec" | tail -5
	return 1
}

each_mode() {
	printf '%s\n' "-p function" "-p function_graph"
}

# attach_held OUT OPTS... -- CMD...: CMD started held before its main by a
# preloaded constructor (progs/modes_gate.c) until `utrace record -o
# OUT.dat OPTS -P PID` says it attached, then let run; OUT.out, OUT.err,
# OUT.rc are CMD's, OUT.rec the recorder's; both bounded as run_traced.
# The recorder starts once the gate says CMD is in it: earlier, under
# load, the pid can still be the shell's child before its execve, and an
# attach there ends at the exec (the recorder says so).
attach_held() {
	local o=$1 opts=() p r k
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	[ -f "$W/modes_gate.so" ] ||
		gcc -O2 -shared -fPIC -o "$W/modes_gate.so" "$HP/modes_gate.c" || return 1
	rm -f "$o.go" "$o.go.ready"
	MODES_GATE=$o.go LD_PRELOAD=$W/modes_gate.so "$@" >"$o.out" 2>"$o.err" &
	p=$!
	{ sleep "${HOSTILE_LIMIT:-120}"; pkill -9 -P $p; kill -9 $p; } 2>/dev/null &
	k=$!
	until_ok 300 test -f "$o.go.ready" ||
		echo "# attach_held: $* not at its gate after 30 s"
	timeout -k 5 "${HOSTILE_LIMIT:-120}" "$U" record -o "$o.dat" "${opts[@]}" -P $p \
		>"$o.rec" 2>&1 &
	r=$!
	# (not attached in 30 s: said, and the program let go anyway)
	until_ok 300 grep -q "attached to $p" "$o.rec" ||
		echo "# attach_held: not attached after 30 s: $(tail -1 "$o.rec")"
	touch "$o.go"
	wait $p
	echo $? >"$o.rc"
	kill $k 2>/dev/null
	wait $r
}

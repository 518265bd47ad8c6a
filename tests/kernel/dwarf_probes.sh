#!/bin/bash
# tests/kernel/dwarf_probes.sh BUILD_DIR - probes by source names through
# the kernel's uprobe_events (lib/probes/dwarf*.c): `utrace record --probe`
# with variables, members, array elements, bitfields, strings and a global
# read from DWARF, and SYMBOL:LINE / FILE:LINE points, on tests/progs/dwarfargs.c
# built by gcc and clang at -O0 and -O2.  The values the kernel recorded are
# the ones the program printed.  Then the errors: an unknown variable, a bad
# member, a variable optimised out, each with its column.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_uprobe_events
need_built "$U"

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
SRC=$ROOT/tests/progs/dwarfargs.c
# the line of `printf("total=...` (FILE:LINE) and walk's `total += ...` (walk:6)
PLINE=$(grep -n 'printf("total=' "$SRC" | cut -d: -f1)

groups= # the recorders' uprobe groups, utrace_PID/, as an ERE alternation
for cc in gcc clang; do
	command -v $cc >/dev/null || { ok "$cc: not installed, skipped"; continue; }
	for opt in -O0 -O2; do
		P=$T/da-$cc$opt
		C="$cc $opt"
		$cc -std=gnu11 -g $opt -I"$ROOT/tests/progs" -o "$P" "$SRC" || { notok "$C: build dwarfargs"; continue; }
		defs=(--probe "p:walk $P:walk count p->next->len buf:string p->arr[2] p->flag p->mode p->name:string nn=p->next->name:string counter"
			--probe "p:ln $P:walk:6 p->len")
		# at -O2 total lives in a register only while the loop runs
		[ $opt = -O0 ] && defs+=(--probe "p:fl $P:dwarfargs.c:$PLINE total")
		# in the background for its pid: its kernel probes are group utrace_PID
		"$U" record "${defs[@]}" -o "$T/d.dat" -- "$P" >"$T/out" 2>"$T/err" &
		groups+="${groups:+|}utrace_$!/"
		wait $!
		check "$C: record --probe by DWARF names exits 0" test $? -eq 0 || sed 's/^/#   /' "$T/err"
		"$U" report -i "$T/d.dat" >"$T/rep" 2>&1
		eval "$(sed -n '1s/\([a-z_0-9]*\)=\([^ ]*\)/\1=\2;/gp' "$T/out")"
		want="count=$count len=$next_len buf_string=\"hello\" arr=$arr2 flag=$flag mode=$mode name=\"$name\" nn=\"$next_name\" counter=$counter"
		check "$C: walk's names read as printed ($want)" grep -q "/\* walk: ([0-9a-f]*) $want \*/\$" "$T/rep"
		check "$C: walk:6 (SYMBOL:LINE) reads p->len once per node ($len, $next_len)" \
			eval "grep -q '/\* ln: ([0-9a-f]*) len=$len \*/\$' '$T/rep' && grep -q '/\* ln: ([0-9a-f]*) len=$next_len \*/\$' '$T/rep'"
		if [ $opt = -O0 ]; then
			total=$(sed -n 's/^total=\([0-9]*\).*/\1/p' "$T/out")
			check "$C: dwarfargs.c:$PLINE (FILE:LINE) reads total=$total" grep -q "/\* fl: ([0-9a-f]*) total=$total \*/\$" "$T/rep"
		fi
	done
done
# only these recorders' groups: other utrace sessions may run beside this test
check "nothing left in uprobe_events" eval '! grep -qE "$groups" "$TR/uprobe_events"'

# errors: perf probe's words, the column of the name, exit 2
P=$T/da-gcc-O2
err_case() { # err_case WHAT DEF TEXT COLUMN
	"$U" record --probe "$2" -o "$T/e.dat" -- "$P" >/dev/null 2>"$T/bad"
	local rc=$? want="$3 at column $4"
	check "$1: '$want', exit 2 (got $rc: $(head -1 "$T/bad"))" \
		eval '[ $rc -eq 2 ] && grep -q "$want" "$T/bad"'
}
# columns: "p:e " is 4, then the path, then ":walk "
err_case "unknown variable" "p:e $P:walk cnt" "Failed to find the variable in this function" $((${#P} + 11))
err_case "bad member" "p:e $P:walk p->nope" "No such member" $((${#P} + 14))
err_case "optimised out" "p:e $P:walk:9 i" "perhaps it has been optimized out" $((${#P} + 13))
err_case "no code at a line (a blank one)" "p:e $P:walk:4 p" "No probe-able code at this line" $((${#P} + 11))
exit 0

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/sched_graph.sh BUILD_DIR - off-CPU time under the call that
# slept (lib/report/report_sched.c), as uftrace shows `linux:schedule`:
# tests/kernel/kusleep.c, built with `utrace cflags`, sleeps 20 ms in
# usleep() inside nap(); recorded with -e sched:sched_switch,
#
#   - report: a `linux:schedule();` line of at least 19 ms (a lower bound
#     only: a busy machine wakes it later), nested in usleep() (--libcall,
#     the default), after the sched_switch's own comment; with --no-libcall
#     nested in nap() itself
#   - graph: `(1) linux:schedule` below usleep, at least 19 ms
#   - without -e sched:sched_switch: no such line
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
say() { sed 's/^/#   /' "$@"; }

need_built "$U"
need_root "kernel events need root (tracefs instances)"
find_tracefs
if [ -z "$TR" ] || [ ! -d "$TR/instances" ] || [ ! -d "$TR/events/sched/sched_switch" ]; then
	unsupported "no tracefs with instances and sched:sched_switch"
fi
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
export XDG_RUNTIME_DIR=$T/run
mkdir "$XDG_RUNTIME_DIR"
CC=${CC:-cc}

# shellcheck disable=SC2046
$CC $("$U" cflags) -O0 -o "$T/kusleep" "$ROOT/tests/kernel/kusleep.c" || exit 1

# sched_line REPORT PARENT: "OK DUR_US", the longest linux:schedule line
# nested right in a call of PARENT (two columns in from PARENT's "{"),
# else "none"
sched_line() {
	awk -v par="$2" '
	!(i = index($0, "|")) { next }
	{ body = substr($0, i + 1); match(body, /^ */); ind = RLENGTH }
	body ~ ("^ *" par "\\(\\) \\{$") { in_ = 1; pind = ind; next }
	in_ && ind == pind && body ~ /^ *}/ { in_ = 0; next }
	in_ && ind == pind + 2 && body ~ /^ *linux:schedule\(\);$/ &&
		match(substr($0, 1, i - 1), /[0-9.]+ us/) {
		d = substr($0, RSTART, RLENGTH - 3) + 0
		if (d > max) max = d
		found = 1
	}
	END { if (found) print "OK " max; else print "none" }' "$1"
}

(cd "$T" && "$U" record -e sched:sched_switch -o lc.dat -- ./kusleep 2>lc.err) ||
	{ notok "record -e sched:sched_switch"; say "$T/lc.err"; exit 1; }
"$U" report -i "$T/lc.dat" >"$T/lc.txt" 2>"$T/lc.rep.err"
r=$(sched_line "$T/lc.txt" usleep)
check "report: linux:schedule nested in usleep() ($r)" test "${r%% *}" = OK
check "report: the 20 ms sleep switched out at least 19 ms (${r#OK } us)" \
	awk -v d="${r#OK }" 'BEGIN { exit !(d + 0 >= 19000) }'
check "report: the sleep's sched_switch still printed, as a comment" \
	grep -q '|        /\* sched_switch: prev_comm=kusleep .* prev_state=S ' "$T/lc.txt"
[ "${r%% *}" = OK ] || say "$T/lc.txt"

"$U" graph -i "$T/lc.dat" >"$T/lc.graph" 2>/dev/null
g=$(awk '/\(1\) usleep$/ { u = 1; next } u && /\([0-9]+\) linux:schedule$/ { print $1, $2; exit } { u = 0 }' "$T/lc.graph")
check "graph: linux:schedule below usleep, at least 19 ms (${g:-none})" \
	awk -v t="${g% *}" -v u="${g#* }" 'BEGIN { exit !((u == "ms" && t >= 19) || u == "s") }'
[ -n "$g" ] || say "$T/lc.graph"

(cd "$T" && "$U" record --no-libcall -e sched:sched_switch -o nl.dat -- ./kusleep 2>nl.err) ||
	{ notok "record --no-libcall -e sched:sched_switch"; say "$T/nl.err"; }
"$U" report -i "$T/nl.dat" >"$T/nl.txt" 2>/dev/null
r=$(sched_line "$T/nl.txt" nap)
check "report --no-libcall: linux:schedule nested in nap() ($r)" test "${r%% *}" = OK
check "report --no-libcall: at least 19 ms (${r#OK } us)" \
	awk -v d="${r#OK }" 'BEGIN { exit !(d + 0 >= 19000) }'

(cd "$T" && "$U" record -o no.dat -- ./kusleep 2>no.err)
"$U" report -i "$T/no.dat" >"$T/no.txt" 2>/dev/null
check "without sched events: no linux:schedule line" \
	sh -c "grep -q 'usleep' '$T/no.txt' && ! grep -q 'linux:schedule' '$T/no.txt'"

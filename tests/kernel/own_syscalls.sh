#!/bin/bash
# tests/kernel/own_syscalls.sh BUILD_DIR - the system calls of an empty
# program under `utrace record -e raw_syscalls:sys_enter` are its own, as
# strace -f counts them in the same run of this test, within a small
# margin; utrace's own (the recorder's child before its exec,
# libutrace.so's start-up, a thread's buffer and exit work: OWN records)
# are left out of the report, which says how many, and -O utrace-own
# shows them (issue 26).
#
# The margin, per program image (per execve): what no window of utrace can
# cover.  The dynamic loader maps libutrace.so before any of its code runs
# (openat, read, fstat, up to six mmap, close, mprotect: 11), the
# runtime's OWN message is sent after the window it reports (1), and the
# owner check as a sub-buffer starts (1: an empty program fills one): 13,
# and 3 more for a libc whose loader splits a mapping differently.  A command found in $PATH is one
# execve, as under strace: the recorder's child looks it up before the
# go, not with one execve per folder after it.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MARGIN=16
need_root "tracefs needs root"
find_tracefs
[ -n "$TR" ] && [ -d "$TR/events/raw_syscalls/sys_enter" ] || unsupported "no raw_syscalls:sys_enter"
command -v strace >/dev/null || unsupported "no strace"
need_built "$U"

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
printf 'int main(void) { return 0; }\n' >"$T/empty.c"
cc -O1 $("$U" cflags) -o "$T/empty" "$T/empty.c" || { notok "build the empty program"; exit 1; }

# one case: NAME, the record's options, then -- CMD...
one_case() {
	local name=$1 opts=$2 want got own all execs margin
	shift 2
	# strace's count: the calls column of its "total" line, and execve's
	strace -f -c -o "$T/strace.out" "$@" >/dev/null 2>&1
	want=$(awk '$NF == "total" { print $4 }' "$T/strace.out")
	execs=$(awk '$NF == "execve" { print $4 }' "$T/strace.out")
	margin=$((MARGIN * ${execs:-1}))
	# shellcheck disable=SC2086
	"$U" record $opts -e raw_syscalls:sys_enter -o "$T/$name.dat" -- "$@" >/dev/null 2>&1
	check "$name: record exits 0" test $? -eq 0
	"$U" report -i "$T/$name.dat" >"$T/$name.rep" 2>"$T/$name.err"
	got=$(grep -c 'sys_enter: NR' "$T/$name.rep")
	check "$name: $got system calls against strace's $want (margin $margin)" \
		test -n "$want" -a "$got" -ge "$want" -a "$got" -le $((want + margin))
	check "$name: execve as often as under strace ($execs)" \
		test "$(grep -c 'sys_enter: NR 59 ' "$T/$name.rep")" = "$execs"
	check "$name: exit_group, the program's last call, is shown" \
		grep -q 'sys_enter: NR 231 ' "$T/$name.rep"
	own=$(sed -n "s/^utrace report: \([0-9]*\) kernel events* w[a-z]* utrace's own .*/\1/p" "$T/$name.err")
	check "$name: the report says how many it left out ($own)" test -n "$own" -a "${own:-0}" -gt 0
	"$U" report -O utrace-own -i "$T/$name.dat" >"$T/$name.all" 2>"$T/$name.allerr"
	all=$(grep -c 'sys_enter: NR' "$T/$name.all")
	check "$name: -O utrace-own shows them ($all = $got + $own)" test "$all" -eq $((got + ${own:-0}))
	check "$name: and then says nothing of them" bash -c "! grep -q \"utrace's own\" '$T/$name.allerr'"
}

one_case nop "-p nop" /bin/true
one_case fgraph "" "$T/empty"
# a command from $PATH that starts two more programs (-c: theirs too)
one_case children "-c -p nop" sh -c "/bin/true; $T/empty"
exit 0

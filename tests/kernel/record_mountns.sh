#!/bin/bash
# tests/kernel/record_mountns.sh BUILD_DIR - a traced process in a mount
# namespace of its own runs a program that its path names there but not
# here (a bind mount over an empty folder), so the recorder names its
# objects through /proc/PID/root (lib/record/recorder_msg.c).  The program
# (tests/progs/fork.c) forks a child that calls child_work and ends, all
# before the recording does.  The child's functions must still be named
# in the report: the symbols of its objects (inherited, patched by the
# parent, so not looked at when it connects) are read while its
# /proc/PID/root still opens, not when the recording ends (then they
# printed as addresses).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_root "mount namespaces need root"
need_built "$U"
command -v unshare >/dev/null || unsupported "no unshare (util-linux)"

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
mkdir "$T/real" "$T/seen"
cc -O0 -g $("$U" cflags) -I"$ROOT/tests/progs" -o "$T/real/fork" "$ROOT/tests/progs/fork.c" ||
	{ notok "build fork.c"; exit 1; }
# the program ends, then the namespace's shell sleeps on, traced
timeout 60 "$U" record -o "$T/t.dat" -- unshare -m sh -c \
	"mount --bind '$T/real' '$T/seen' && '$T/seen/fork' >/dev/null; sleep 0.5" \
	>"$T/out" 2>&1
check "the recording ended normally ($(tail -n 1 "$T/out"))" test $? -eq 0
"$U" report -i "$T/t.dat" >"$T/rep" 2>"$T/rep.err"
check "report read it" test $? -eq 0
# the child: the task of fork's that is not the first
pid=$(grep -o 'fork-[0-9]*' "$T/rep" | sort -u | sed -n 2p | cut -d- -f2)
check "the child's records are in the report (pid ${pid:-none})" test -n "$pid"
for f in child_work child_leaf; do
	check "the child's $f() is named, not an address" \
		grep -q "fork-$pid .* $f() {\\|fork-$pid .* $f();" "$T/rep"
done
check "no function of the child printed as an address" \
	test "$(grep "fork-$pid" "$T/rep" | grep -c ' 0x[0-9a-f]*()')" -eq 0

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/samples_kernel.sh BUILD_DIR - kernel addresses and stacks in
# utrace record -F's samples, where this user may see them (root or
# kernel.perf_event_paranoid <= 1, and /proc/kallsyms showing addresses),
# on tests/kernel/ksys.c (main -> writer -> pwrite to /dev/null: most of
# its time in the kernel):
#
#   - by default the event is cpu-clock (not :u), the kernel's functions
#     are entries of their own, Shared Object [kernel.kallsyms], Symbol
#     [k] NAME, named from the symbols the recording saved (kallsyms'
#     vfs_write and its callers), as perf report shows them
#   - -g callee: under a kernel entry, the kernel's frames (the syscall
#     entry among them) come before (above) the user's (main); with
#     --call-graph dwarf too, the user part unwound (writer, which the
#     frame-pointer walk misses, then main)
#   - the report names them from the file alone (kallsyms not read then)
#   - -e cpu-clock:u leaves the kernel out (no [kernel.kallsyms], event
#     'cpu-clock:u'); -e cpu-clock:k and -e cpu-clock without -F are
#     refused with one line, exit 2
#   - perf record on the same program: the same top kernel entry
#     (when perf is installed)
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 1 ]; then
	unsupported "kernel samples need root or kernel.perf_event_paranoid <= 1"
fi
head -1 /proc/kallsyms | grep -q '^0*[1-9a-f]' || unsupported "/proc/kallsyms hides its addresses"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
CC=${CC:-cc}
N=${KSYS_N:-1500000}

$CC -O2 -fno-omit-frame-pointer -o "$T/ksys" "$ROOT/tests/kernel/ksys.c" || exit 1
$CC -O2 -fomit-frame-pointer -o "$T/ksys.nofp" "$ROOT/tests/kernel/ksys.c" || exit 1
if ! (cd "$T" && "$U" record -p nop -F 999 --call-graph fp -o k.dat -- ./ksys "$N" \
	>/dev/null 2>rec.err); then
	notok "record -F 999 --call-graph fp"
	sed 's/^/#   /' "$T/rec.err"
	exit 1
fi
"$U" report --samples -i "$T/k.dat" >"$T/k.txt" 2>&1
check "the event is cpu-clock, the kernel included" grep -q "of event 'cpu-clock'$" "$T/k.txt"
check "kernel entries: [kernel.kallsyms] and [k] vfs_write" \
	grep -q "  ksys  *\[kernel\.kallsyms\]  *\[k\] vfs_write$" "$T/k.txt"
kshare=$(awk '/\[kernel\.kallsyms\]/ { sub(/%/, "", $1); s += $1 } END { print s + 0 }' "$T/k.txt")
check "most of the time is the kernel's (${kshare}%)" awk -v s="$kshare" 'BEGIN { exit !(s > 50) }'

# the callee tree under vfs_write's entry, one frame a line
tree() {
	awk '/\[k\] vfs_write$/ { on = 1; next } on && /^$/ { exit }
		on { gsub(/[|-]/, " "); gsub(/[0-9.]+%/, " "); if (NF == 1) print $1 }' "$1"
}
order() { # order FILE FRAME...: each frame found, in this order
	local f=$1 last=0 n
	shift
	for fr; do
		n=$(grep -n "^$fr" "$f" | head -1 | cut -d: -f1)
		[ -n "$n" ] && [ "$n" -gt "$last" ] || return 1
		last=$n
	done
}
"$U" report --samples -g callee -i "$T/k.dat" >"$T/g.txt" 2>&1
tree "$T/g.txt" >"$T/g.tree"
# (libc's pwrite keeps no frame pointer: the walk skips writer, as perf's)
check "-g callee: kernel frames, then the user's ($(tr '\n' ' ' <"$T/g.tree" | head -c 200))" \
	order "$T/g.tree" vfs_write entry_SYSCALL_64 main

(cd "$T" && "$U" record -p nop -F 999 --call-graph dwarf -o d.dat -- ./ksys.nofp "$N" \
	>/dev/null 2>&1)
"$U" report --samples -g callee -i "$T/d.dat" >"$T/d.txt" 2>&1
tree "$T/d.txt" >"$T/d.tree"
check "--call-graph dwarf: the kernel's frames, then the unwound user ones ($(tr '\n' ' ' \
	<"$T/d.tree" | head -c 200))" order "$T/d.tree" vfs_write entry_SYSCALL_64 'writer$' 'main$'

(cd "$T" && "$U" record -p nop -F 999 -e cpu-clock:u -o u.dat -- ./ksys "$N" >/dev/null 2>&1)
"$U" report --samples -i "$T/u.dat" >"$T/u.txt" 2>&1
check "-e cpu-clock:u: the event is cpu-clock:u" grep -q "of event 'cpu-clock:u'$" "$T/u.txt"
check "-e cpu-clock:u: no kernel entry" test -z "$(grep 'kernel\.kallsyms' "$T/u.txt")"
"$U" record -p nop -F 99 -e cpu-clock:k -- true >"$T/bad.txt" 2>&1
rc=$?
check "-e cpu-clock:k: exit 2, one line ($(head -1 "$T/bad.txt"))" \
	test "$rc" -eq 2 -a "$(wc -l <"$T/bad.txt")" -eq 1
"$U" record -p nop -e cpu-clock -- true >"$T/bad.txt" 2>&1
rc=$?
check "-e cpu-clock without -F: exit 2, one line ($(head -1 "$T/bad.txt"))" \
	test "$rc" -eq 2 -a "$(wc -l <"$T/bad.txt")" -eq 1

if command -v perf >/dev/null; then
	perf record -F 999 -g -o "$T/perf.data" "$T/ksys" "$N" >/dev/null 2>&1
	top() { awk '/^ +[0-9.]+%/ && /\[k\]/ { print $NF; exit }'; }
	p=$(perf report --stdio --no-children -i "$T/perf.data" 2>/dev/null | top)
	u=$(top <"$T/k.txt")
	check "perf report's top kernel entry is ours too (perf $p, utrace $u)" \
		test -n "$p" -a "$p" = "$u"
fi
exit 0

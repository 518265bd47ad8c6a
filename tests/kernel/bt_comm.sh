#!/bin/bash
# tests/kernel/bt_comm.sh BUILD_DIR - `comm` of a kernel tracepoint's hit
# in utrace bt is the thread's name at the hit, as bpftrace's
# bpf_get_current_comm(), read there by utrace's BPF program on the
# tracepoint (lib/bt/bt_kcap.c), not its name when the record is replayed:
# a program opens a file, renames itself (prctl PR_SET_NAME) and opens it
# twice, then runs exec and opens it three times, and each name counts its
# own opens; with -c (comm alone, comm beside str(), two probes on one
# event: each gets the hit's own capture) and system-wide, where the maps
# are bpftrace's own, line for line, in the same run of this test when
# bpftrace is installed.  Before the capture of comm, every open counted
# under the program's last name.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_root "kernel tracepoints need root"
find_tracefs
[ -n "$TR" ] && [ -d "$TR/events/syscalls/sys_enter_openat" ] || unsupported "no sys_enter_openat"
need_built "$U"

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cat >"$T/kcomm.c" <<'PROG'
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>
/* kcomm FILE EXE: opens FILE once, renames itself "renamed" and opens it
 * twice, then runs EXE (a copy of itself) as "EXE FILE", which opens it
 * three times. */
int main(int argc, char **argv)
{
	if (argc == 2) {
		for (int i = 0; i < 3; i++)
			close(open(argv[1], O_RDONLY));
		return 0;
	}
	if (argc != 3)
		return 2;
	close(open(argv[1], O_RDONLY));
	prctl(PR_SET_NAME, "renamed");
	for (int i = 0; i < 2; i++)
		close(open(argv[1], O_RDONLY));
	execl(argv[2], argv[2], argv[1], (char *)0);
	return 1;
}
PROG
cc -O1 -o "$T/kcomm" "$T/kcomm.c" || { notok "build the program"; exit 1; }
cp "$T/kcomm" "$T/kcomm2"
M=$T/marker
touch "$M"
CMD="$T/kcomm $M $T/kcomm2"
BPFTRACE=$(command -v bpftrace)

# the count of key NAME in map MAP of FILE ("@MAP[NAME]: N"), 0 if none
count_of() { sed -n "s/^@$2\[$3\]: \([0-9]*\)$/\1/p" "$1" | grep . || echo 0; }

# -c, comm alone: the loader's opens and the program's, under each name
timeout 120 "$U" bt -v -e 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @[comm] = count(); }' \
	-c "$CMD" >"$T/alone" 2>&1
k=$(count_of "$T/alone" "" kcomm)
r=$(count_of "$T/alone" "" renamed)
k2=$(count_of "$T/alone" "" kcomm2)
check "-c, @[comm] alone: 2 opens as renamed, 2 more as kcomm2 than as kcomm, its loader's the same ($k, $r, $k2)" \
	eval '[ "$r" = 2 ] && [ "$k" -ge 1 ] && [ $((k2 - k)) = 2 ]'
check "-v: the names read at the event by a BPF program, no strings" \
	eval 'grep -q "^utrace bt: the names of the threads that hit a kernel event (comm) read at the event by a BPF program" "$T/alone" &&
		! grep -q "^utrace bt: strings a kernel event points to" "$T/alone"'

# -c, comm beside str(args->filename): the file's opens by name
timeout 120 "$U" bt -e 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @[comm] = count(); @f[comm, str(args->filename)] = count(); }' \
	-c "$CMD" >"$T/both" 2>&1
check "-c, @[comm, str(args->filename)]: the file opened once as kcomm, twice renamed, three times as kcomm2" \
	eval 'grep -qx "@f\[kcomm, $M\]: 1" "$T/both" && grep -qx "@f\[renamed, $M\]: 2" "$T/both" &&
		grep -qx "@f\[kcomm2, $M\]: 3" "$T/both"'
check "-c: @[comm] the same beside str() as alone" \
	eval '[ "$(grep "^@\[" "$T/both" | sort)" = "$(grep "^@\[" "$T/alone" | sort)" ]'

# two probes on one event: each replay of a record gets the hit's capture
timeout 120 "$U" bt -e 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @a[comm] = count(); @s[str(args->filename)] = count(); }
	tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @b[comm] = count(); @t[str(args->filename)] = count(); }' \
	-c "$CMD" >"$T/two" 2>&1
check "two probes on one event: the same comm and strings for both, as for one ($(grep -c '^@' "$T/two") keys)" \
	eval '[ "$(sed -n "s/^@a\[/@[/p" "$T/two" | sort)" = "$(grep "^@\[" "$T/alone" | sort)" ] &&
		[ "$(sed -n "s/^@b\[/@[/p" "$T/two" | sort)" = "$(grep "^@\[" "$T/alone" | sort)" ] &&
		grep -qx "@s\[$M\]: 6" "$T/two" && grep -qx "@t\[$M\]: 6" "$T/two"'

if [ -n "$BPFTRACE" ]; then
	# bpftrace's -c runs the command without libutrace.so, whose loading
	# is one open more an image: utrace's maps less those are bpftrace's
	timeout 120 "$BPFTRACE" -e 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @[comm] = count(); @f[comm, str(args->filename)] = count(); }' \
		-c "$CMD" >"$T/bpf.both" 2>"$T/bpf.both.err"
	awk '/^@f\[.*libutrace\.so\]: / { split($0, a, /[[,]/); less[a[2]] += $NF; next }
	     /^@f\[/ { print; next }
	     /^@\[/ { n = $0; sub(/^@\[/, "", n); sub(/\]: .*/, "", n); v[n] = $NF }
	     END { for (n in v) printf "@[%s]: %d\n", n, v[n] - less[n] }' "$T/both" | sort >"$T/both.less"
	grep '^@' "$T/bpf.both" | sort >"$T/bpf.both.keys"
	check "-c: bpftrace's maps, less the opens of libutrace.so ($(tr '\n' '|' <"$T/bpf.both.keys"))" \
		eval '[ -s "$T/bpf.both.keys" ] && cmp -s "$T/both.less" "$T/bpf.both.keys"'
fi

# every process's: the program found by its names, its exit_group ends
# the run; the maps are bpftrace's, the same program
SYS='tracepoint:syscalls:sys_enter_openat /comm == "kcomm" || comm == "renamed" || comm == "kcomm2"/ { @[comm] = count(); }
	tracepoint:syscalls:sys_enter_exit_group /comm == "kcomm2"/ { exit(); }'
wide() { # wide OUT TOOL...: TOOL runs SYS system-wide, the program once it is attached
	local out=$1 p
	shift
	timeout 120 env __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$@" -e "$SYS" >"$out" 2>"$out.err" &
	p=$!
	for _ in $(seq 600); do
		grep -q '^__BPFTRACE_NOTIFY_PROBES_ATTACHED$' "$out" "$out.err" && break
		sleep 0.1
	done
	$CMD
	wait $p
}
wide "$T/wide" "$U" bt
sed -n 's/^@\[\(.*\)\]: /\1 /p' "$T/wide" | sort >"$T/wide.keys"
check "system-wide: 2 opens as renamed, 2 more as kcomm2 than as kcomm ($(tr '\n' '|' <"$T/wide.keys"))" \
	eval 'grep -qx "renamed 2" "$T/wide.keys" &&
		[ $(($(count_of "$T/wide" "" kcomm2) - $(count_of "$T/wide" "" kcomm))) = 2 ] &&
		[ "$(wc -l <"$T/wide.keys")" = 3 ]'
if [ -n "$BPFTRACE" ]; then
	wide "$T/bpf.wide" "$BPFTRACE"
	sed -n 's/^@\[\(.*\)\]: /\1 /p' "$T/bpf.wide" | sort >"$T/bpf.wide.keys"
	check "system-wide: bpftrace's map ($(tr '\n' '|' <"$T/bpf.wide.keys"))" \
		eval '[ -s "$T/bpf.wide.keys" ] && cmp -s "$T/wide.keys" "$T/bpf.wide.keys"'
fi
exit 0

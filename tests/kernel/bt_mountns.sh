#!/bin/bash
# tests/kernel/bt_mountns.sh BUILD_DIR - `utrace bt -p PID` on a program
# that runs in a mount namespace of its own, from a private tmpfs that
# ours does not see (a container's, bpftrace's suite's mountns_wrapper):
# the uprobe's BIN, a path only the process sees, is taken through
# /proc/PID/root (lib/base/proc_self.c utrace_proc_path, as bpftrace's -p
# takes it, and its probe builtin says so), the attached process's objects
# are opened there by the recorder, and the probe fires in the process
# with the argument it printed; -l -p lists its functions there too.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_root "mount namespaces need root"
need_built "$U"
unshare -m --propagation private true 2>/dev/null || unsupported "no unshare -m"

T=$(mktemp -d) || exit 1
NS=$(mktemp -d) || exit 1
PP=
trap '[ -n "$PP" ] && kill $PP 2>/dev/null; wait 2>/dev/null; rm -rf "$T"; rmdir "$NS"' EXIT
cat >"$T/p.c" <<'PROG'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int function1(int x) { __asm__ volatile("" ::: "memory"); return x + 1; }
int main(void)
{
	for (int i = 1000; i < 1600; i++) { /* a minute at most */
		printf("call %d\n", i);
		fflush(stdout);
		function1(i);
		usleep(100000);
	}
	return 0;
}
PROG
cc -O1 -o "$T/p" "$T/p.c" || { notok "build the probed program"; exit 1; }

# the program from a tmpfs mounted in its own mount namespace only
unshare -m --propagation private sh -c \
	"mount -t tmpfs none '$NS' && cp '$T/p' '$NS/p' && exec '$NS/p'" >"$T/prog.out" 2>&1 &
PP=$!
# (read again at each try: a function)
runs_p() { test "$(readlink "/proc/$PP/exe" 2>/dev/null)" = "$NS/p"; }
until_ok 100 runs_p
check "the program runs from its private tmpfs, which our mount namespace does not see" \
	eval '[ "$(readlink "/proc/$PP/exe")" = "$NS/p" ] && [ ! -e "$NS/p" ]'

timeout 60 "$U" bt -e "uprobe:$NS/p:function1 { printf(\"%s %d\\n\", probe, arg0); exit(); }" \
	-p "$PP" >"$T/out" 2>"$T/err"
rc=$?
check "bt -p on a path of the process's mount namespace attaches (rc $rc)" \
	eval '[ $rc = 0 ] && grep -qx "Attaching 1 probe..." "$T/out"'
hit=$(awk -v p="uprobe:/proc/$PP/root$NS/p:function1" '$1 == p { print $2; exit }' "$T/out")
check "the probe fires in the process, named through /proc/PID/root as bpftrace names it" \
	test -n "$hit"
check "... with the argument the program printed ($hit)" grep -qx "call $hit" "$T/prog.out"
"$U" bt -l "uprobe:$NS/p:func*" -p "$PP" >"$T/list" 2>&1
check "-l -p lists the function through /proc/PID/root" \
	grep -qx "uprobe:/proc/$PP/root$NS/p:function1" "$T/list"
[ -s "$T/err" ] && sed 's/^/# /' "$T/err" | head -5
exit 0

#!/bin/bash
# tests/kernel/bt_profile.sh BUILD_DIR - `utrace bt` profile probes
# (lib/bt/bt_profile.c: utrace's sampler, perf_event_open's cpu-clock):
# every CPU's tasks are sampled, with -c too as bpftrace's (a process
# spinning beside the command has samples of its own), each sample
# running the action on its pid, tid and comm; without a process, exit()
# in the action ends the run; the probe builtin.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_root "system-wide sampling needs root"
need_built "$U"

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cat >"$T/spin.c" <<'PROG'
#include <stdio.h>
#include <unistd.h>
int main(void)
{ /* on CPU until 200 ms of its CPU time are gone, however loaded the
   * machine (-DFOREVER: until killed) */
	volatile unsigned long x = 0;

#ifdef FOREVER
	for (;;)
		x++;
#endif
	while (clock() < CLOCKS_PER_SEC / 5)
		for (int i = 0; i < 100000; i++)
			x += i;
	printf("pid %d\n", getpid());
	return 0;
}
PROG
sed -i 's/#include <unistd.h>/#include <time.h>\n#include <unistd.h>/' "$T/spin.c"
cc -O0 -o "$T/spinner" "$T/spin.c" || { notok "build the program"; exit 1; }

cc -O0 -DFOREVER -o "$T/bgspin" "$T/spin.c" || { notok "build the program"; exit 1; }

"$T/bgspin" >/dev/null &
bg=$!
timeout 60 "$U" bt -e 'profile:hz:997 { @[comm] = count(); @p[pid] = count(); }' -c "$T/spinner" >"$T/out" 2>"$T/err"
rc=$?
kill $bg
wait $bg 2>/dev/null
pid=$(sed -n 's/^pid //p' "$T/out")
check "profile probe on the command runs (rc $rc)" test $rc -eq 0
check "the command's samples: its comm and pid ($pid)" \
	eval 'grep -qE "^@\[spinner\]: [1-9][0-9]*$" "$T/out" && grep -qE "^@p\[$pid\]: [1-9][0-9]*$" "$T/out"'
check "with -c, every CPU's tasks as bpftrace's: the spinner beside it ($bg) too" \
	eval 'grep -qE "^@\[bgspin\]: [1-9][0-9]*$" "$T/out" && grep -qE "^@p\[$bg\]: [1-9][0-9]*$" "$T/out"'
timeout 60 "$U" bt -e 'profile:hz:599 { @[tid] = count(); printf("%s\n", probe); exit(); }' >"$T/sw" 2>&1
rc=$?
check "without a process: every CPU's tasks, exit() ends the run (rc $rc)" \
	eval '[ $rc = 0 ] && grep -qE "^@\[[0-9]+\]: 1$" "$T/sw" && grep -qx "profile:hz:599" "$T/sw"'
exit 0

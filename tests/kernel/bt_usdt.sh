#!/bin/bash
# tests/kernel/bt_usdt.sh BUILD_DIR - `utrace bt` with usdt probes (kernel
# uprobes of the recording, lib/bt/bt_usdt.c) and its live replay
# (lib/bt/bt_live.c): arguments as the notes size them, signed or not,
# equal to what the program printed, an index register's through an
# in-process probe; the probe's semaphore set while it
# is attached; -l's usdt lines; printf lines out while the program still
# runs (the program waits for the test to have seen the line); exit()
# ending a program that would never end; with -c and a tracepoint, the
# command's process's hits only; nothing left in uprobe_events.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_uprobe_events
need_built "$U"
echo "#include <sys/sdt.h>" | cc -E -x c - >/dev/null 2>&1 || unsupported "no <sys/sdt.h> (systemtap-sdt-dev)"

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cat >"$T/u.c" <<'PROG'
#define _SDT_HAS_SEMAPHORES 1
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/sdt.h>
unsigned short app_sized_semaphore __attribute__((unused)) __attribute__((section(".probes")));
__attribute__((noinline)) void step(int i) { __asm__ volatile("" ::: "memory"); (void)i; }
int main(int argc, char **argv)
{
	volatile int8_t c = -5;
	volatile uint16_t h = 65000;
	volatile int32_t w = -100000;
	volatile int64_t q = -5000000000ll;

	if (argc > 2) { /* live: wait (60 s at most) for the test to see the line */
		step(7);
		for (int i = 0; i < 600 && access(argv[2], F_OK) != 0; i++)
			usleep(100000);
		printf("released %d\n", access(argv[2], F_OK) == 0);
		return 0;
	}
	for (unsigned i = 0;; i++) { /* until killed: exit() in the probe ends it */
		if (app_sized_semaphore)
			printf("semaphore %u\n", (unsigned)app_sized_semaphore), fflush(stdout);
		STAP_PROBE5(app, sized, c, h, w, q, i);
		if (argc > 1)
			return 0;
		usleep(1000);
	}
}
PROG
cc -O1 -o "$T/u" "$T/u.c" || { notok "build the probed program"; exit 1; }

# the arguments as sized by the note: int8, uint16, int32, int64 (%lld:
# bpftrace's %d reads 32 bits of it, as C's printf)
timeout 60 "$U" bt -e "usdt:$T/u:app:sized { printf(\"%d %d %d %lld %s\\n\", arg0, arg1, arg2, arg3, probe); exit(); }" \
	-c "$T/u" >"$T/out" 2>"$T/err"
rc=$?
check "usdt probe with exit(): a program that never ends is ended (rc $rc)" test $rc -eq 0
check "usdt arguments sized and signed as the note says: -5 65000 -100000 -5000000000" \
	grep -qx -- "-5 65000 -100000 -5000000000 usdt:$T/u:app:sized" "$T/out"
# 1, as under bpftrace: the runtime's reads of the file (lib/elf's
# mapping) count no second uprobe mapping
check "the probe's semaphore is 1 while it is attached ($(grep -m1 '^semaphore' "$T/out"))" \
	eval 'grep -q "^semaphore 1\$" "$T/out" && ! grep "^semaphore" "$T/out" | grep -qv "^semaphore 1\$"'
"$U" bt -l "usdt:$T/u:*" >"$T/list" 2>&1
check "-l usdt:BIN:* lists the probe as bpftrace does" grep -qx "usdt:$T/u:app:sized" "$T/list"
timeout 60 "$U" bt -e "usdt:$T/u:app:nosuch { exit(); }" -c "$T/u" >"$T/none" 2>&1
check "a usdt probe that matches nothing: an error before anything runs" \
	eval 'grep -q "No probes to attach" "$T/none" && ! grep -q "^semaphore" "$T/none"'

# an argument with an index register (base + index * scale + displacement,
# as gcc -O1 writes an array element): a kernel uprobe cannot fetch it, the
# in-process probe of the started program does (common/fetch_prog.h INDEX);
# the values are the ones the program prints
cat >"$T/v.c" <<'PROG'
#include <stdint.h>
#include <stdio.h>
#include <sys/sdt.h>
int main(int argc, char **argv)
{
	volatile int64_t q[8];
	volatile int32_t w[8];

	(void)argv;
	for (int k = 0; k < 8; k++)
		q[k] = -1000003ll * (k + argc), w[k] = 7919 * (k - 9);
	for (volatile int i = 5; i <= 6; i++) {
		printf("values %lld %d\n", (long long)q[i], (int)w[i]);
		STAP_PROBE2(app, index, q[i], w[i]);
	}
	return 0;
}
PROG
cc -O1 -o "$T/v" "$T/v.c" || { notok "build the program with an indexed usdt argument"; exit 1; }
check "gcc -O1 gave the probe index-register arguments (base,index,scale)" \
	eval 'readelf -n "$T/v" | grep -A3 "Name: index" | grep -qE "Arguments: .*\(%[a-z0-9]+,%[a-z0-9]+,[1248]\)"'
timeout 60 "$U" bt -v -e "usdt:$T/v:app:index { printf(\"values %lld %d\\n\", arg0, arg1); }" \
	-c "$T/v" >"$T/idx" 2>"$T/idx.err"
rc=$?
check "usdt index-register arguments with -c: the run ends well (rc $rc)" test $rc -eq 0
check "... served by an in-process probe (-v)" grep -q "usdt:$T/v:app:index: in-process probe" "$T/idx.err"
check "... the values the program printed, two hits" \
	eval '[ "$(grep -c "^values " "$T/idx")" = 4 ] && [ "$(grep "^values " "$T/idx" | sort | uniq -c | awk "\$1 != 2" | wc -l)" = 0 ]'
timeout 60 "$U" bt -e "usdt:$T/v:app:index { printf(\"%lld\\n\", arg0); exit(); }" >"$T/idx.sw" 2>&1
rc=$?
check "usdt index-register arguments without -c or -p: an error naming the probe and argument (rc $rc)" \
	eval '[ $rc != 0 ] && grep -q "usdt:$T/v:app:index: .*argument [0-9]* .[^ ]*,%[a-z0-9]*,[1248])[^ ]*: an index register, which a kernel uprobe cannot fetch" "$T/idx.sw"'

# without -c or -p: every process running the file, also one started once
# the probes are attached (its semaphore set by the kernel), as bpftrace's
# (and so --usdt-file-activation)
timeout 60 env __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$U" bt --usdt-file-activation -e \
	"usdt:$T/u:app:sized { printf(\"pid %d arg4 %d\\n\", pid, arg4); exit(); }" >"$T/sw" 2>"$T/sw.err" &
bp=$!
for _ in $(seq 300); do grep -q '^__BPFTRACE_NOTIFY_PROBES_ATTACHED$' "$T/sw" && break; sleep 0.1; done
"$T/u" >"$T/sw.prog" 2>&1 &
up=$!
wait $bp
rc=$?
kill $up 2>/dev/null
wait $up 2>/dev/null
check "usdt without a process: a program started after attaching is probed, exit() ends the run (rc $rc)" \
	eval '[ $rc = 0 ] && grep -qE "^pid $up arg4 [0-9]+$" "$T/sw"'
check "... its semaphore set while the probe is attached" grep -q '^semaphore [1-9]' "$T/sw.prog"

# -c and a kernel tracepoint: the tracepoint sees every process (the
# kernel instance then follows none), the usdt probe only the command's
# process, as bpftrace attaches usdt to its pid: another process running
# the same file (started first, probed all along) adds no hit
"$T/u" >/dev/null 2>&1 &
other=$!
timeout 60 "$U" bt -e "usdt:$T/u:app:sized { @u[pid] = count(); @n++; if (@n >= 20) { exit(); } }
	tracepoint:syscalls:sys_enter_getppid { @g = count(); }" -c "$T/u" >"$T/own" 2>"$T/own.err"
rc=$?
kill $other 2>/dev/null
wait $other 2>/dev/null
check "-c with a tracepoint: usdt hits of the command's process only ($(grep -c '^@u' "$T/own") keys, rc $rc)" \
	eval '[ $rc = 0 ] && grep -qx "@u\[[0-9]*\]: [0-9]*" "$T/own" && [ "$(grep -c "^@u" "$T/own")" = 1 ] &&
	! grep -q "^@u\[$other\]" "$T/own"'

# live: the printf line comes out while the program runs; the program
# ends only once the test has seen it (or after 60 s, saying so)
timeout 90 "$U" bt -e "uprobe:$T/u:step { printf(\"step %d\\n\", arg0); }" \
	-- "$T/u" live "$T/seen" >"$T/live" 2>"$T/live.err" &
bp=$!
for _ in $(seq 600); do
	grep -q '^step 7$' "$T/live" && break
	sleep 0.1
done
touch "$T/seen"
wait $bp
check "printf while the program runs: the line was out before the program ended" \
	eval 'grep -qx "released 1" "$T/live" && grep -qx "step 7" "$T/live"'
check "nothing left in uprobe_events (of this test's files)" eval '! grep -qF "$T/" "$TR/uprobe_events"'
exit 0

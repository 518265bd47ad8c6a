#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_crash.sh BUILD_DIR - options/dump-on-crash of
# `utrace record --tracefs DIR` (lib/tracefs/live_options.c,
# lib/record/recorder_livebuf.c, runtime/crash.c, lib/session/
# session_crash.c), on a program that calls a function in a loop until a
# file exists, then dies of a NULL store a few calls down.
# Without --dump-on-crash the file reads 0; `echo 1` into it before the
# crash: the recorder's stderr has the dump (the thread, the signal line
# at fault_here, the calls before it) and the report the signal.  With
# --dump-on-crash it reads 1; `echo 0` into it: no dump and no signal
# record, and the program's own SIGSEGV handler runs as untraced.  The
# exit status (139) and the program's output are those of the untraced
# program in both.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
ulimit -c 0
cat >"$T/cr.c" <<'PROG'
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
__attribute__((noinline)) int spin_work(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) void fault_here(int *p) { *(volatile int *)p = 1; }
__attribute__((noinline)) void descend(int n, int *p)
{
	if (n)
		descend(n - 1, p);
	else
		fault_here(p);
	__asm__ volatile("");
}
static void own(int sig)
{
	static const char m[] = "own handler: SIGSEGV\n";

	write(2, m, sizeof(m) - 1);
	signal(sig, SIG_DFL); /* the store faults again: the default action */
}
int main(int argc, char **argv)
{
	char path[4096];
	FILE *f;
	volatile int v = 0;

	if (argc > 2 && !strcmp(argv[2], "own"))
		signal(SIGSEGV, own);
	snprintf(path, sizeof(path), "%s.pid", argv[1]);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	while (access(argv[1], F_OK)) {
		v = spin_work(v);
		usleep(1000);
	}
	printf("crashing\n");
	fflush(stdout);
	descend(5, NULL);
	return 0;
}
PROG
cc -O2 $("$U" cflags) -o "$T/cr" "$T/cr.c" || { notok "build the program"; exit 1; }

# untraced: the stop file there at once
touch "$T/u.stop"
{ "$T/cr" "$T/u.stop" >"$T/u.out" 2>"$T/u.err"; } 2>/dev/null
UST=$?
touch "$T/uo.stop"
{ "$T/cr" "$T/uo.stop" own >"$T/uo.out" 2>"$T/uo.err"; } 2>/dev/null
UOST=$?
check "untraced: the program dies of SIGSEGV (139), its own handler ran" \
	test "$UST" = 139 -a "$UOST" = 139 -a "$(cat "$T/uo.err")" = "own handler: SIGSEGV"

# live TAG RECORD-OPTIONS... -- PROGRAM-ARGS: the recording started on
# $T/TAG.stop, the tracefs mounted; cd'd into it
live() {
	local tag=$1
	shift
	"$U" record "$@" --tracefs "$T/mnt" -o "$T/$tag.dat" -- "$T/cr" "$T/$tag.stop" \
		"${PROG_ARG[@]}" >"$T/$tag.out" 2>"$T/$tag.err" &
	RP=$!
	until_ok 100 test -s "$T/$tag.stop.pid" -a -f "$T/mnt/options/dump-on-crash" || return 1
	cd "$T/mnt"
}
# mounted DESCRIPTION TAG ...: live TAG ..., or the test ends here
mounted() {
	local d=$1
	shift
	if live "$@"; then ok "$d"; else notok "$d"; exit 1; fi
}
# crash TAG: the program let go, the recording waited for; sets $TST
crash() {
	cd "$T" || exit 1
	touch "$T/$1.stop"
	{ wait "$RP"; } 2>/dev/null
	TST=$?
	RP=
	"$U" report -i "$T/$1.dat" >"$T/$1.rep" 2>&1
}

PROG_ARG=()
mounted "on: the tracefs is mounted, options/dump-on-crash there" on
check "on: options/dump-on-crash reads 0 without --dump-on-crash" \
	test "$(cat options/dump-on-crash)" = 0
check "on: trace_options lists nodump-on-crash" grep -qx nodump-on-crash trace_options
echo 1 > options/dump-on-crash
check "on: echo 1: it reads 1" test "$(cat options/dump-on-crash)" = 1
check "on: trace_options lists dump-on-crash" grep -qx dump-on-crash trace_options
P=$(cat "$T/on.stop.pid")
crash on
check "on: exit status as untraced ($UST)" test "$TST" = "$UST"
check "on: stdout as untraced" cmp -s "$T/u.out" "$T/on.out"
check "on: the dump names the thread and the signal" \
	grep -qx "utrace: pid $P died of SIGSEGV in thread $P" "$T/on.err"
check "on: the dump's signal line: SEGV_MAPERR at fault_here" \
	grep -qE "^thread $P: signal: SIGSEGV code=SEGV_MAPERR addr=0x0 ip=fault_here\\+0x[0-9a-f]+\$" \
	"$T/on.err"
check "on: the dump has the calls before it (descend, fault_here)" \
	eval "grep -q '^Dumping the last [0-9]* calls of thread $P before its signal:' '$T/on.err' &&
	grep -q 'descend() {\$' '$T/on.err' && grep -q 'fault_here() {\$' '$T/on.err'"
check "on: the report shows the signal" grep -q 'signal: SIGSEGV code=SEGV_MAPERR' "$T/on.rep"

PROG_ARG=(own)
mounted "off: the tracefs is mounted" off --dump-on-crash
check "off: options/dump-on-crash reads 1 with --dump-on-crash" \
	test "$(cat options/dump-on-crash)" = 1
echo 0 > options/dump-on-crash
check "off: echo 0: it reads 0" test "$(cat options/dump-on-crash)" = 0
echo 2 > options/dump-on-crash 2>"$T/inval.err"
check "off: it takes 0 or 1 (2: EINVAL)" grep -q 'Invalid argument' "$T/inval.err"
crash off
check "off: exit status as untraced ($UOST)" test "$TST" = "$UOST"
check "off: stdout as untraced" cmp -s "$T/uo.out" "$T/off.out"
check "off: the program's own handler ran, as untraced" grep -qx 'own handler: SIGSEGV' "$T/off.err"
check "off: no dump" eval "! grep -qE '^(Dumping|utrace: pid [0-9]+ died)' '$T/off.err'"
check "off: no signal record" eval "! grep -q 'signal: SIG' '$T/off.rep'"
check "off: the recording has the calls" grep -q 'spin_work();' "$T/off.rep"

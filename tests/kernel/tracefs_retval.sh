#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_retval.sh BUILD_DIR - options/funcgraph-retval and
# options/funcgraph-retval-hex of `utrace record --tracefs DIR`
# (lib/tracefs/live_options.c, lib/record/recorder_live.c, runtime/ftrace.c
# rt_objects_live_apply), on a program built without DWARF whose function
# returns -EIO (-5), 0 and a large value in turn.  With function_graph
# running, funcgraph-retval (off at first) makes the exits carry the
# return value from then on; printed as Linux 6.12 prints an untyped one:
# the error code in decimal, the others in hex; -hex: all in hex.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cat >"$T/rv.c" <<'PROG'
#include <unistd.h>
__attribute__((noinline)) long proc_reg_write(int n)
{
	__asm__ volatile("");
	return n % 3 == 0 ? -5 : n % 3 == 1 ? 0 : 0x123456789L;
}
int main(int argc, char **argv)
{
	volatile long v = 0;

	for (int n = 0; access(argv[1], F_OK); n++) {
		v += proc_reg_write(n);
		usleep(1000);
	}
	return 0;
}
PROG
cc -O2 $("$U" cflags) -o "$T/rv" "$T/rv.c" || { notok "build the program"; exit 1; }

"$U" record -p function_graph --tracefs "$T/mnt" -o "$T/rv.dat" -- "$T/rv" "$T/stop" \
	>"$T/rec.out" 2>&1 &
RP=$!
check "the tracefs is mounted" until_ok 100 test -f "$T/mnt/options/funcgraph-retval" || exit 1
cd "$T/mnt" || { notok "mounted"; exit 1; }

# got PATTERN: trace read again (cleared first) until it has a line with it
got() {
	echo > trace
	for _ in $(seq 60); do
		cat trace >"$T/tr"
		grep -q -- "$1" "$T/tr" && return 0
		sleep 0.1
	done
	return 1
}

check "funcgraph-retval is off at first" test "$(cat options/funcgraph-retval)" = 0
check "trace_options lists it" grep -qx nofuncgraph-retval trace_options
check "the calls are traced" got 'proc_reg_write();$'
check "without it no return value" test "$(grep -c 'proc_reg_write(); /\*' "$T/tr")" -eq 0
echo 1 > options/funcgraph-retval
check "it reads 1" test "$(cat options/funcgraph-retval)" = 1
check "an error code in signed decimal" got 'proc_reg_write(); /\* = -5 \*/$'
check "zero in hex" trace_shows "$T/tr" 'proc_reg_write(); /\* = 0x0 \*/$'
check "another value in hex" trace_shows "$T/tr" 'proc_reg_write(); /\* = 0x123456789 \*/$'
echo 1 > options/funcgraph-retval-hex
check "funcgraph-retval-hex: the error code in hex" \
	trace_shows "$T/tr" 'proc_reg_write(); /\* = 0xfffffffffffffffb \*/$'
check "... and no decimal" test "$(grep -c '= -5 \*/' "$T/tr")" -eq 0
echo 0 > options/funcgraph-retval-hex
echo nofuncgraph-retval > trace_options
check "it reads 0 again" test "$(cat options/funcgraph-retval)" = 0
only_plain() {
	echo > trace
	sleep 0.3
	cat trace >"$T/tr"
	grep -q 'proc_reg_write();$' "$T/tr" && ! grep -q 'proc_reg_write(); /\*' "$T/tr"
}
check "the exits after it have no return value" until_ok 50 only_plain

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the recording ends well" test $? -eq 0

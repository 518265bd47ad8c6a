#!/bin/bash
# tests/kernel/kleaf.sh BUILD_DIR - a syscall made by a function that calls
# no other traced function shows inside it ("say() { /* sys_enter_write */
# }"), not after a folded "say();" line; a leaf without syscalls stays one
# line.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_root "tracefs needs root"
find_tracefs
[ -n "$TR" ] && [ -d "$TR/events/syscalls/sys_enter_write" ] || unsupported "no syscalls:sys_enter_write"
need_built "$U"

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cat >"$T/lw.c" <<'PROG'
#include <unistd.h>
__attribute__((noinline)) void say(const char *s, int n) { write(1, s, n); }
__attribute__((noinline)) int quiet(int x) { return x + 1; }
int main(void) { volatile int v = quiet(1); say("hi\n", 3); v = quiet(v); say("yo\n", 3); return v - 3; }
PROG
cc -O1 $("$U" cflags) -o "$T/lw" "$T/lw.c" || { notok "build the program"; exit 1; }
# --no-libcall: say() must call no traced function, and write() would be one
"$U" record --no-libcall -e syscalls:sys_enter_write -o "$T/lw.dat" -- "$T/lw" >/dev/null 2>&1
check "record exits 0" test $? -eq 0
"$U" report -i "$T/lw.dat" >"$T/rep" 2>&1
check "each write inside say() { ... }" \
	test "$(grep -c -A1 '|    say() {$' "$T/rep" | head -1)" -ge 2
check "the write lines are one level below say" \
	test "$(grep -c '|      /\* sys_enter_write: fd: 0x00000001' "$T/rep")" -eq 2
check "quiet() stays a one-line leaf" test "$(grep -c '|    quiet();$' "$T/rep")" -eq 2
exit 0
